"""The arguments of a probe, checked: activations as ``(rows, heads, head_dim)``, positions.

A dump names its axes with letters: ``b`` batch, ``t`` token, ``h`` head, ``d`` a head's
channel, and ``f`` a hidden axis of ``heads × head_dim`` (a projection's output before the
reshape). The defaults are ``tf`` (2-D), ``thd`` (3-D, as the probe fixtures store them) and
``bthd`` (4-D); ``bhtd`` is the layout transformers' attention modules rotate. Positions are
one per token, or one row of ids per token for multi-axis RoPE (M-RoPE: t, h, w). No I/O.
"""

from __future__ import annotations

import numpy as np

from ....core.errors import ParameterError

__all__ = ["as_rows", "check_pair", "default_axes", "token_positions"]

#: The dtypes an activation dump may have (integers are no activations).
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
#: Most axes of multi-axis position ids (Qwen-VL's M-RoPE has 3).
MAX_ID_AXES = 8
#: Largest |position| (float64 holds every integer up to it).
MAX_POSITION = 2.0**53


def default_axes(ndim: int) -> str:
    """The axis letters of a ``ndim``-D dump when none are given.

    >>> default_axes(2), default_axes(3), default_axes(4)
    ('tf', 'thd', 'bthd')
    """
    return {2: "tf", 3: "thd", 4: "bthd"}.get(ndim, "")


def as_rows(
    array: np.ndarray,
    axes: str | None,
    *,
    heads: int | None = None,
    head_dim: int | None = None,
    parameter: str = "pre",
) -> tuple[np.ndarray, int]:
    """A dump as ``(batch·tokens, heads, head_dim)`` in its own dtype, and the batch size.

    Parameters
    ----------
    array : numpy.ndarray
        The dump, 2-D to 4-D, a float dtype (bfloat16 as ``ml_dtypes.bfloat16``).
    axes : str or None
        One letter per axis (``b``, ``t``, ``h``, ``d``, ``f``); None: :func:`default_axes`.
    heads, head_dim : int, optional, keyword-only
        What an ``f`` axis holds (one of them is enough); beside ``h`` and ``d`` they must agree.
    parameter : str, keyword-only
        The name errors are reported under.

    Raises
    ------
    ParameterError
        As ``parameter`` (a dtype that is not float, a shape that the axes do not fit),
        ``axes`` (letters), ``heads`` or ``head_dim``.

    Examples
    --------
    >>> q = np.zeros((2, 4, 5, 8), np.float32)  # (batch, heads, tokens, head_dim)
    >>> rows, batch = as_rows(q, "bhtd")
    >>> rows.shape, batch
    ((10, 4, 8), 2)
    >>> as_rows(np.zeros((5, 32)), None, head_dim=8)[0].shape
    (5, 4, 8)

    """
    if array.dtype.name not in FLOAT_DTYPES:
        rule = "must hold floating-point activations (float16, bfloat16, float32 or float64)"
        raise ParameterError(parameter, rule, f"dtype {array.dtype}")
    if axes is None and not 2 <= array.ndim <= 4:
        rule = "must have 2 to 4 axes: (tokens, hidden), (tokens, heads, head_dim), or a batch too"
        raise ParameterError(parameter, rule, f"shape {array.shape}")
    letters = default_axes(array.ndim) if axes is None else axes
    _check_letters(letters, array.shape, parameter)
    order = [letters.index(a) for a in "bthdf" if a in letters]
    moved = np.transpose(array, order)
    batch = array.shape[letters.index("b")] if "b" in letters else 1
    tokens = array.shape[letters.index("t")]
    if "f" in letters:
        hidden = array.shape[letters.index("f")]
        heads, head_dim = _split_hidden(hidden, heads, head_dim)
    else:
        _agree(array.shape[letters.index("h")], heads, "heads")
        _agree(array.shape[letters.index("d")], head_dim, "head_dim")
        heads, head_dim = array.shape[letters.index("h")], array.shape[letters.index("d")]
    return np.ascontiguousarray(moved).reshape(batch * tokens, heads, head_dim), batch


def _check_letters(letters: str, shape: tuple[int, ...], parameter: str) -> None:
    wanted = ("t", "f") if "f" in letters else ("t", "h", "d")
    extra = set(letters) - {"b", *wanted}
    if len(letters) != len(set(letters)) or extra or not set(wanted) <= set(letters):
        rule = (
            "must name each axis once with b (batch), t (token), h (head), d (channel) or "
            "f (heads × head_dim): thd, bthd, bhtd, tf, btf"
        )
        raise ParameterError("axes", rule, letters)
    if len(letters) != len(shape):
        rule = f"must have one axis per letter of {letters!r}: give the dump's axes"
        raise ParameterError(parameter, rule, f"shape {shape}")
    if 0 in shape:
        raise ParameterError(parameter, "must hold at least one value per axis", f"shape {shape}")


def _split_hidden(hidden: int, heads: int | None, head_dim: int | None) -> tuple[int, int]:
    """(heads, head_dim) of a hidden axis, from either or both."""
    if heads is None and head_dim is None:
        rule = "must be given for a hidden axis f of heads × head_dim (or heads)"
        raise ParameterError("head_dim", rule, None)
    if head_dim is None:
        head_dim = hidden // heads if heads and hidden % heads == 0 else 0
        if not head_dim:
            raise ParameterError("heads", f"must divide the hidden width {hidden}", heads)
    elif hidden % head_dim:
        raise ParameterError("head_dim", f"must divide the hidden width {hidden}", head_dim)
    _agree(hidden // head_dim, heads, "heads")
    return hidden // head_dim, head_dim


def _agree(size: int, given: int | None, name: str) -> None:
    if given is not None and given != size:
        raise ParameterError(name, f"must match the dump's {size}", given)


def check_pair(pre: np.ndarray, post: np.ndarray) -> None:
    """Refuse two dumps of different shapes, or values that are not finite.

    Raises
    ------
    ParameterError
        As ``post`` (shape) or ``pre`` / ``post`` (a NaN or an infinity, with where).

    """
    if pre.shape != post.shape:
        rule = f"must have PRE's shape {pre.shape} (the same vectors, after RoPE)"
        raise ParameterError("post", rule, f"shape {post.shape}")
    if pre.shape[2] < 2:
        raise ParameterError("pre", "must have at least 2 channels per head", pre.shape[2])
    for name, array in (("pre", pre), ("post", post)):
        bad = ~np.isfinite(array.astype(np.float64))
        if bad.any():
            row, head, channel = (int(i) for i in np.argwhere(bad)[0])
            where = f"token row {row}, head {head}, channel {channel}"
            raise ParameterError(name, "must hold finite numbers only", where)


def token_positions(positions: np.ndarray | None, tokens: int, batch: int) -> np.ndarray:
    """The position (or ids) of every row, shape ``(batch·tokens, axes)``, float64.

    ``positions`` may be None (``0 … tokens−1``), 1-D (one per token, or per row of a
    batch), or 2-D ids with one column per axis ``(tokens, axes)`` or one row per axis
    ``(axes, tokens)`` (a square table is read as one row per token); ids for every row of
    a batch too.

    Raises
    ------
    ParameterError
        As ``positions``: a count that is neither the tokens' nor the rows', more than
        :data:`MAX_ID_AXES` axes, a value that is not finite or past 2^53, or every position 0.

    Examples
    --------
    >>> token_positions(np.array([[0, 1, 2, 2], [0, 1, 2, 3], [0, 1, 2, 2]]), 4, 1).tolist()
    [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [2.0, 3.0, 2.0]]

    """
    rows = batch * tokens
    if positions is None:
        return np.tile(np.arange(tokens, dtype=np.float64), batch)[:, None]
    p = np.asarray(positions, dtype=np.float64)
    if p.ndim == 1:
        p = p[:, None]
    elif p.ndim == 2 and p.shape[0] not in (tokens, rows) and p.shape[1] in (tokens, rows):
        p = p.T
    if p.ndim != 2 or p.shape[0] not in (tokens, rows) or p.shape[1] > MAX_ID_AXES:
        count = f"{tokens}" if rows == tokens else f"{tokens} or {rows}"
        rule = (
            f"must hold one position per token ({count}), or one row of ids per token, "
            f"at most {MAX_ID_AXES} axes"
        )
        raise ParameterError("positions", rule, f"shape {np.shape(positions)}")
    if not np.all(np.isfinite(p)) or np.any(np.abs(p) > MAX_POSITION):
        rule = "must be finite numbers with |p| <= 2^53"
        raise ParameterError("positions", rule, p[~np.isfinite(p) | (np.abs(p) > MAX_POSITION)][0])
    if not p.any():
        rule = (
            "must hold a position other than 0: RoPE leaves position 0 unchanged, so there "
            "a RoPE layer and a NoPE one look alike"
        )
        raise ParameterError("positions", rule, "every position 0")
    return np.tile(p, (batch, 1)) if p.shape[0] == tokens and rows != tokens else p
