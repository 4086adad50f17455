"""`make bench`'s figure anchors: each draws its command's panels with matplotlib.figure alone.

Same size, dpi, panels, artists (lines, images, colour bars, legends, log axes) and data size
as the command's default figure, written to the same kind of file; the maths in a few NumPy
lines. What a user would write to get the figure without pecli, at its cheapest.
"""

from __future__ import annotations

_HEAD = (
    "import math, sys, numpy as np\nfrom matplotlib.figure import Figure\n"
    "def table(n, d, base=1e4, start=1):\n"
    "    p = np.arange(start, start + n, dtype=np.float64)[:, None]\n"
    "    w = base ** (-np.arange(0, d, 2) / d)\n"
    "    t = np.empty((n, d)); t[:, 0::2] = np.sin(p * w); t[:, 1::2] = np.cos(p * w)\n"
    "    return t\n"
)
_SAVE = "fig.savefig(sys.argv[1])\n"

HEATMAP = (
    _HEAD
    + (
        "d, n = 128, 100\nt = table(n, d)\n"
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained'); ax = fig.add_subplot()\n"
        "im = ax.imshow(t.T, origin='lower', aspect='auto', cmap='RdBu_r', vmin=-1, vmax=1,\n"
        "               extent=(0.5, n + 0.5, 0.5, d + 0.5), interpolation='nearest')\n"
        "ax.set_xlabel('position'); ax.set_ylabel('component'); ax.set_title('floor')\n"
        "fig.colorbar(im, ax=ax, label='value')\n"
    )
    + _SAVE
)

WAVES = (
    _HEAD
    + (
        "t = table(251, 512, start=0); pairs = (1, 10, 50, 100)\n"
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained')\n"
        "axes = fig.subplots(len(pairs), 1, sharex=True, squeeze=False)[:, 0]\n"
        "for k, (ax, i) in enumerate(zip(axes, pairs)):\n"
        "    ax.plot(np.arange(251), t[:, 2 * i - 2], color=f'C{k}', linewidth=1.2)\n"
        "    ax.text(1.01, 0.5, f'i = {i}', transform=ax.transAxes); ax.grid(alpha=0.3)\n"
        "axes[-1].set_xlabel('position'); fig.supylabel('sin'); fig.suptitle('Sine components')\n"
    )
    + _SAVE
)

FOURIER = (
    _HEAD
    + (
        "x = np.linspace(-2 * math.pi, 2 * math.pi, 2001); k = 3\n"
        "g = np.stack([f(j * x) for j in range(1, k + 1) for f in (np.sin, np.cos)], 1)\n"
        "out = np.tanh(g @ np.random.default_rng(0).standard_normal((2 * k, 32))).sum(1)\n"
        "fig = Figure(figsize=(9.0, 6.0), dpi=100, layout='constrained')\n"
        "top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))\n"
        "for c in range(2 * k): top.plot(x, g[:, c], linewidth=1.0, label=f'f{c}')\n"
        "top.legend(loc='upper left', bbox_to_anchor=(1.01, 1.0), fontsize='small')\n"
        "bottom.plot(x, out, color='black'); bottom.annotate('', xy=(0, 1), xytext=(2, 1),\n"
        "    arrowprops={'arrowstyle': '<->'}); bottom.text(1, 1, 'period 2π')\n"
        "for ax in (top, bottom): ax.grid(alpha=0.3)\n"
    )
    + _SAVE
)

GRID = (
    _HEAD
    + (
        "h = w = 14; d = 64; q = d // 4\n"
        "omega = 1e4 ** (-np.arange(q) / q); c = np.arange(w) * omega[:1]\n"
        "panels = [np.sin(np.outer(np.ones(h), np.arange(w) * omega[0])),\n"
        "          np.sin(np.outer(np.ones(h), np.arange(w) * omega[1])),\n"
        "          np.sin(np.outer(np.arange(h) * omega[0], np.ones(w))),\n"
        "          np.sin(np.outer(np.arange(h) * omega[1], np.ones(w)))]\n"
        "fig = Figure(figsize=(6.4, 5.4), dpi=100, layout='constrained')\n"
        "axes = fig.subplots(2, 2, squeeze=False)\n"
        "for ax, p in zip(axes.flat, panels):\n"
        "    im = ax.imshow(p, cmap='RdBu_r', vmin=-1, vmax=1, interpolation='nearest')\n"
        "    ax.set_xlabel('column c'); ax.set_ylabel('row r')\n"
        "fig.colorbar(im, ax=axes, label='value', shrink=0.8); fig.suptitle('Channels')\n"
    )
    + _SAVE
)

SIMILARITY = (
    _HEAD
    + (
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained'); ax = fig.add_subplot()\n"
        "k = np.arange(-256, 257)\n"
        "for base in (100.0, 1e4):\n"
        "    w = base ** (-np.arange(0, 512, 2) / 512)\n"
        "    ax.plot(k, np.cos(np.outer(k, w)).mean(1), linewidth=1.2, label=f'C = {base:g}')\n"
        "ax.legend(); ax.grid(alpha=0.3); ax.set_xlabel('offset k'); ax.set_ylabel('similarity')\n"
    )
    + _SAVE
)

SPECTRUM = (
    _HEAD
    + (
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained'); ax = fig.add_subplot()\n"
        "i = np.arange(1, 257)\n"
        "ax.plot(i, 2 * math.pi * 1e4 ** (2 * (i - 1) / 512), linewidth=1.4, label='C = 10000')\n"
        "ax.set_yscale('log'); ax.legend(); ax.grid(alpha=0.3)\n"
        "ax.set_xlabel('pair i'); ax.set_ylabel('wavelength')\n"
    )
    + _SAVE
)

ALIBI = (
    _HEAD
    + (
        "h, n = 12, 32; m = 2.0 ** (-8 * np.arange(1, 9) / 8)\n"
        "m = np.concatenate([m, (2.0 ** (-8 * np.arange(1, 17, 2) / 16))[: h - 8]])\n"
        "i = np.arange(n)[:, None] - np.arange(n)[None, :]\n"
        "b = np.where(i >= 0, -m[0] * i, np.nan)\n"
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained')\n"
        "left, right = fig.subplots(1, 2, width_ratios=(1.1, 1.0))\n"
        "im = left.imshow(np.ma.masked_invalid(b), cmap='viridis', aspect='auto',\n"
        "                 interpolation='nearest'); fig.colorbar(im, ax=left, label='bias')\n"
        "right.semilogy(np.arange(h), m, marker='o', label='press')\n"
        "right.semilogy(np.arange(h), 2.0 ** (-8 * np.arange(1, h + 1) / 16), marker='x',\n"
        "               linestyle='--', label='next-power-of-two')\n"
        "right.legend(loc='lower left'); right.grid(alpha=0.3); fig.suptitle('ALiBi')\n"
    )
    + _SAVE
)

T5 = (
    _HEAD
    + (
        "nb, md = 16, 128; r = np.arange(-136, 137); n = np.abs(r); exact = nb // 2\n"
        "large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(md / exact)\n"
        "                 * (nb - exact)).astype(int)\n"
        "b = np.where(n < exact, n, np.minimum(large, nb - 1)) + nb * (r > 0)\n"
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained'); ax = fig.add_subplot()\n"
        "ax.step(r, b, where='mid', linewidth=1.3)\n"
        "for x in (exact, md): ax.axvline(x, linestyle=':'); ax.axvline(-x, linestyle=':')\n"
        "ax.grid(alpha=0.3); ax.set_xlabel('memory − query'); ax.set_ylabel('bucket')\n"
    )
    + _SAVE
)

AXES = (
    _HEAD
    + (
        "from matplotlib.colors import ListedColormap\n"
        "widths = (22, 21, 21); axis = np.repeat([0, 1, 2], widths)\n"
        "lam = np.concatenate([2 * math.pi * 1e4 ** (np.arange(0, 2 * w, 2) / (2 * w))\n"
        "                      for w in widths]); pairs = np.arange(64)\n"
        "fig = Figure(figsize=(9.0, 4.5), dpi=100, layout='constrained')\n"
        "strip, waves = fig.subplots(2, 1, sharex=True, height_ratios=[1, 6])\n"
        "strip.imshow(axis[None, :], aspect='auto', cmap=ListedColormap(['C0', 'C1', 'C2']),\n"
        "             extent=(-0.5, 63.5, 0, 1), interpolation='nearest')\n"
        "for k in range(3):\n"
        "    waves.plot(pairs[axis == k], lam[axis == k], linestyle='none', marker='o',\n"
        "               markersize=3.5, color=f'C{k}', label=f'axis {k}')\n"
        "waves.set_yscale('log'); waves.legend(loc='upper left'); waves.grid(alpha=0.3)\n"
    )
    + _SAVE
)
