/* The correct-rounding certificate fused into the consecutive kernel's complex product.
 *
 * One compiled pass per block (docs/exactness.md, "What it costs"): for each pair of the
 * block, v = anchor[r, j] * turn[j] (complex128), each part rounded to float32 as
 * round(v + e) (written) and round(v - e) (compared); the entries whose two roundings
 * differ are "undecided" and their flat positions r*2h + 2j + (0: sin = real, 1: cos = imag)
 * are returned, so Python recomputes just those. The same for a flat array of float64
 * values with a scalar or per-value bound (ends_differ). Exactly the NumPy path's
 * arithmetic: the product is NumPy's formula (re = ar*br - ai*bi, im = ar*bi + ai*br, or
 * with the first product of each fused, fma(ar, br, -(ai*bi)) and fma(ar, bi, ai*br), as
 * NumPy's SIMD loop computes it where the CPU has FMA: the caller says which), each
 * v +- e rounded to float64, then to float32. Built with -ffp-contract=off and without
 * -ffast-math, so the compiler neither fuses nor reorders anything else.
 *
 * CPython API and the buffer protocol only: no NumPy headers. The loops run without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define PECLI_X86 1
#define PECLI_AVX2 __attribute__((target("avx2,fma")))
#else
#define PECLI_X86 0
#define PECLI_AVX2
#endif

#if defined(__GNUC__)
#define PECLI_INLINE static inline __attribute__((always_inline))
#define PECLI_FMA __builtin_fma /* one instruction where the function's target has FMA */
#else
#define PECLI_INLINE static inline
#define PECLI_FMA fma
#endif

/* Pairs computed at a time before their check: the scratch stays in L1. */
#define CHUNK 256

/* A growable list of int64 positions. */
typedef struct {
    int64_t *data;
    Py_ssize_t size, capacity;
    int failed;
} Found;

static void found_push(Found *f, int64_t value)
{
    if (f->size == f->capacity) {
        Py_ssize_t capacity = f->capacity ? 2 * f->capacity : 64;
        int64_t *grown = (int64_t *)realloc(f->data, (size_t)capacity * sizeof(int64_t));
        if (grown == NULL) {
            f->failed = 1;
            return;
        }
        f->data = grown;
        f->capacity = capacity;
    }
    f->data[f->size++] = value;
}

typedef struct {
    const char *anchor; /* (rows, h) complex128, pairs contiguous */
    Py_ssize_t anchor_row;  /* bytes */
    const double *turn; /* (h,) complex128 as 2h doubles */
    char *sin, *cos;    /* float32 destinations */
    Py_ssize_t sin_row, sin_col, cos_row, cos_col; /* bytes */
    Py_ssize_t rows, h;
    double e;
    int fused;
} Block;

/* The products of one chunk of a row: re[k], im[k] for pairs j0 + k, k < n. */
PECLI_INLINE void products(const double *a, const double *b, Py_ssize_t n, int fused,
                           double *re, double *im)
{
    Py_ssize_t k;
    if (fused) {
        for (k = 0; k < n; k++) {
            double ar = a[2 * k], ai = a[2 * k + 1], br = b[2 * k], bi = b[2 * k + 1];
            re[k] = PECLI_FMA(ar, br, -(ai * bi));
            im[k] = PECLI_FMA(ar, bi, ai * br);
        }
    }
    else {
        for (k = 0; k < n; k++) {
            double ar = a[2 * k], ai = a[2 * k + 1], br = b[2 * k], bi = b[2 * k + 1];
            re[k] = ar * br - ai * bi;
            im[k] = ar * bi + ai * br;
        }
    }
}

/* round(v + e) into out[k*stride] (float32), and whether any round(v - e) differs. */
PECLI_INLINE int round_pairs(const double *re, const double *im, Py_ssize_t n, double e,
                             float *out)
{
    int differ = 0;
    Py_ssize_t k;
    for (k = 0; k < n; k++) {
        float rh = (float)(re[k] + e), rl = (float)(re[k] - e);
        float ih = (float)(im[k] + e), il = (float)(im[k] - e);
        out[2 * k] = rh;
        out[2 * k + 1] = ih;
        differ |= (rh != rl) | (ih != il);
    }
    return differ;
}

/* One chunk of a row, interleaved destination: products and rounding in one vector pass. */
#if PECLI_X86
#include <immintrin.h>

PECLI_AVX2 static int interleaved_avx2(const double *a, const double *b, Py_ssize_t n, double e,
                                       int fused, float *out)
{
    __m256d ev = _mm256_set1_pd(e);
    __m128 differ = _mm_setzero_ps();
    double re[2], im[2];
    Py_ssize_t k = 0;
    for (; k + 2 <= n; k += 2) {
        /* (ar0 ai0 ar1 ai1) * (br0 bi0 br1 bi1): lanes re0 im0 re1 im1, NumPy's formula */
        __m256d av = _mm256_loadu_pd(a + 2 * k), bv = _mm256_loadu_pd(b + 2 * k);
        __m256d ar = _mm256_movedup_pd(av), ai = _mm256_permute_pd(av, 0xF);
        __m256d cross = _mm256_mul_pd(ai, _mm256_permute_pd(bv, 0x5)); /* ai*bi, ai*br */
        __m256d w = fused ? _mm256_fmaddsub_pd(ar, bv, cross)
                          : _mm256_addsub_pd(_mm256_mul_pd(ar, bv), cross);
        __m128 high = _mm256_cvtpd_ps(_mm256_add_pd(w, ev));
        __m128 low = _mm256_cvtpd_ps(_mm256_sub_pd(w, ev));
        _mm_storeu_ps(out + 2 * k, high);
        differ = _mm_or_ps(differ, _mm_cmpneq_ps(high, low)); /* NaN: unordered, differs */
    }
    int any = _mm_movemask_ps(differ) != 0;
    if (k < n) {
        products(a + 2 * k, b + 2 * k, 1, fused, re, im);
        any |= round_pairs(re, im, 1, e, out + 2 * k);
    }
    return any;
}
#endif

PECLI_INLINE void block_body(const Block *b, Found *found, int vector)
{
    double re[CHUNK], im[CHUNK];
    float pair[2 * CHUNK];
    Py_ssize_t r, j0, k, n;
    int interleaved = b->sin_col == 8 && b->cos_col == 8 && b->cos == b->sin + 4 &&
                      b->cos_row == b->sin_row;
    (void)vector;
    for (r = 0; r < b->rows; r++) {
        const double *a = (const double *)(b->anchor + r * b->anchor_row);
        for (j0 = 0; j0 < b->h; j0 += CHUNK) {
            int differ;
            n = b->h - j0 < CHUNK ? b->h - j0 : CHUNK;
            float *dest = interleaved ? (float *)(b->sin + r * b->sin_row + j0 * 8) : pair;
#if PECLI_X86
            if (vector && interleaved)
                differ = interleaved_avx2(a + 2 * j0, b->turn + 2 * j0, n, b->e, b->fused, dest);
            else
#endif
            {
                products(a + 2 * j0, b->turn + 2 * j0, n, b->fused, re, im);
                differ = round_pairs(re, im, n, b->e, dest);
            }
            if (!interleaved) {
                char *s = b->sin + r * b->sin_row + j0 * b->sin_col;
                char *c = b->cos + r * b->cos_row + j0 * b->cos_col;
                for (k = 0; k < n; k++) {
                    *(float *)(s + k * b->sin_col) = pair[2 * k];
                    *(float *)(c + k * b->cos_col) = pair[2 * k + 1];
                }
            }
            if (!differ)
                continue;
            products(a + 2 * j0, b->turn + 2 * j0, n, b->fused, re, im); /* the same values */
            for (k = 0; k < n; k++) {
                int64_t flat = (int64_t)(r * 2 * b->h + 2 * (j0 + k));
                if ((float)(re[k] + b->e) != (float)(re[k] - b->e))
                    found_push(found, flat);
                if ((float)(im[k] + b->e) != (float)(im[k] - b->e))
                    found_push(found, flat + 1);
            }
        }
    }
}

static void block_generic(const Block *b, Found *found) { block_body(b, found, 0); }

#if PECLI_X86
PECLI_AVX2 static void block_avx2(const Block *b, Found *found) { block_body(b, found, 1); }
#endif

static int has_avx2(void)
{
#if PECLI_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static int use_avx2 = 0;

/* A 2-D buffer of the given item size and format letter(s), with its byte strides. */
static int get_2d(PyObject *obj, Py_buffer *view, int flags, Py_ssize_t itemsize,
                  const char *format, const char *name)
{
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_FORMAT | PyBUF_STRIDES) < 0)
        return -1;
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@')
        f++;
    if (view->ndim != 2 || view->itemsize != itemsize || strcmp(f, format) != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be a 2-D array of format %s", name, format);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *found_bytes(Found *found)
{
    PyObject *result;
    if (found->failed) {
        free(found->data);
        return PyErr_NoMemory();
    }
    result = PyBytes_FromStringAndSize((const char *)found->data,
                                       found->size * (Py_ssize_t)sizeof(int64_t));
    free(found->data);
    return result;
}

PyDoc_STRVAR(consecutive_doc,
"consecutive(anchor, turn, sin_out, cos_out, r0, e, fused) -> bytes\n\n"
"sin_out[r0 + r, j], cos_out[r0 + r, j] = round(v + e) to float32, v = anchor[r, j] * turn[j]\n"
"(real part to sin_out, imaginary to cos_out); returns the int64 flat positions\n"
"r*2h + 2j + (0 or 1) where round(v - e) differs (undecided), in order.\n"
"anchor: (rows, h) complex128, each row contiguous; turn: (h,) complex128, contiguous;\n"
"sin_out, cos_out: writable (n, h) float32, any strides, n >= r0 + rows; fused: 1 to fuse the first\n"
"product of each part (fma), as NumPy's SIMD loop does where the CPU has FMA.");

static PyObject *consecutive(PyObject *self, PyObject *args)
{
    PyObject *anchor_obj, *turn_obj, *sin_obj, *cos_obj;
    double e;
    int fused;
    Py_ssize_t r0;
    Py_buffer anchor, turn, sin_view, cos_view;
    Block b;
    Found found = {NULL, 0, 0, 0};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOndp", &anchor_obj, &turn_obj, &sin_obj, &cos_obj, &r0, &e,
                          &fused))
        return NULL;
    if (get_2d(anchor_obj, &anchor, PyBUF_SIMPLE, 16, "Zd", "anchor") < 0)
        return NULL;
    if (PyObject_GetBuffer(turn_obj, &turn, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&anchor);
        return NULL;
    }
    if (get_2d(sin_obj, &sin_view, PyBUF_WRITABLE, 4, "f", "sin_out") < 0) {
        PyBuffer_Release(&anchor);
        PyBuffer_Release(&turn);
        return NULL;
    }
    if (get_2d(cos_obj, &cos_view, PyBUF_WRITABLE, 4, "f", "cos_out") < 0) {
        PyBuffer_Release(&anchor);
        PyBuffer_Release(&turn);
        PyBuffer_Release(&sin_view);
        return NULL;
    }
    b.rows = anchor.shape[0];
    b.h = anchor.shape[1];
    if (anchor.strides[1] != 16 || turn.itemsize != 16 || turn.len != 16 * b.h ||
        r0 < 0 || sin_view.shape[0] < r0 + b.rows || sin_view.shape[1] != b.h ||
        cos_view.shape[0] < r0 + b.rows || cos_view.shape[1] != b.h) {
        PyErr_SetString(PyExc_ValueError,
                        "anchor (rows, h) with contiguous rows, turn (h,), sin_out and "
                        "cos_out (n, h) with n >= r0 + rows");
        PyBuffer_Release(&anchor);
        PyBuffer_Release(&turn);
        PyBuffer_Release(&sin_view);
        PyBuffer_Release(&cos_view);
        return NULL;
    }
    b.anchor = (const char *)anchor.buf;
    b.anchor_row = anchor.strides[0];
    b.turn = (const double *)turn.buf;
    b.sin = (char *)sin_view.buf + r0 * sin_view.strides[0];
    b.cos = (char *)cos_view.buf + r0 * cos_view.strides[0];
    b.sin_row = sin_view.strides[0];
    b.sin_col = sin_view.strides[1];
    b.cos_row = cos_view.strides[0];
    b.cos_col = cos_view.strides[1];
    b.e = e;
    b.fused = fused;
    Py_BEGIN_ALLOW_THREADS
#if PECLI_X86
    if (use_avx2)
        block_avx2(&b, &found);
    else
#endif
        block_generic(&b, &found);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&anchor);
    PyBuffer_Release(&turn);
    PyBuffer_Release(&sin_view);
    PyBuffer_Release(&cos_view);
    return found_bytes(&found);
}

PECLI_INLINE void differ_body(const double *v, const double *e, Py_ssize_t e_step,
                              Py_ssize_t n, Found *found)
{
    Py_ssize_t i0, i, n1;
    for (i0 = 0; i0 < n; i0 += CHUNK) {
        int differ = 0;
        n1 = n - i0 < CHUNK ? n - i0 : CHUNK;
        for (i = i0; i < i0 + n1; i++)
            differ |= (float)(v[i] - e[i * e_step]) != (float)(v[i] + e[i * e_step]);
        if (!differ)
            continue;
        for (i = i0; i < i0 + n1; i++)
            if ((float)(v[i] - e[i * e_step]) != (float)(v[i] + e[i * e_step]))
                found_push(found, (int64_t)i);
    }
}

static void differ_generic(const double *v, const double *e, Py_ssize_t e_step, Py_ssize_t n,
                           Found *found)
{
    differ_body(v, e, e_step, n, found);
}

#if PECLI_X86
PECLI_AVX2 static void differ_avx2(const double *v, const double *e, Py_ssize_t e_step,
                                   Py_ssize_t n, Found *found)
{
    differ_body(v, e, e_step, n, found);
}
#endif

PyDoc_STRVAR(ends_differ_doc,
"ends_differ(values, e) -> bytes\n\n"
"The int64 flat positions i where round(values[i] - e) != round(values[i] + e) in\n"
"float32 (each end rounded to float64, then float32). values: contiguous float64;\n"
"e: a float, or contiguous float64 of values' size.");

static PyObject *ends_differ(PyObject *self, PyObject *args)
{
    PyObject *values_obj, *e_obj;
    Py_buffer values, bound;
    double scalar;
    const double *e;
    Py_ssize_t n, e_step;
    Found found = {NULL, 0, 0, 0};
    int has_bound = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &values_obj, &e_obj))
        return NULL;
    if (PyObject_GetBuffer(values_obj, &values, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    n = values.len / 8;
    if (values.itemsize != 8 || strcmp(values.format ? values.format : "B", "d") != 0) {
        PyErr_SetString(PyExc_ValueError, "values must be contiguous float64");
        PyBuffer_Release(&values);
        return NULL;
    }
    if (PyFloat_Check(e_obj) || PyLong_Check(e_obj)) {
        scalar = PyFloat_AsDouble(e_obj);
        if (scalar == -1.0 && PyErr_Occurred()) {
            PyBuffer_Release(&values);
            return NULL;
        }
        e = &scalar;
        e_step = 0;
    }
    else {
        if (PyObject_GetBuffer(e_obj, &bound, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&values);
            return NULL;
        }
        has_bound = 1;
        if (bound.itemsize != 8 || bound.len != values.len ||
            strcmp(bound.format ? bound.format : "B", "d") != 0) {
            PyErr_SetString(PyExc_ValueError, "e must be a float or float64 of values' size");
            PyBuffer_Release(&values);
            PyBuffer_Release(&bound);
            return NULL;
        }
        e = (const double *)bound.buf;
        e_step = 1;
    }
    Py_BEGIN_ALLOW_THREADS
#if PECLI_X86
    if (use_avx2)
        differ_avx2((const double *)values.buf, e, e_step, n, &found);
    else
#endif
        differ_generic((const double *)values.buf, e, e_step, n, &found);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&values);
    if (has_bound)
        PyBuffer_Release(&bound);
    return found_bytes(&found);
}

static PyMethodDef methods[] = {
    {"consecutive", consecutive, METH_VARARGS, consecutive_doc},
    {"ends_differ", ends_differ, METH_VARARGS, ends_differ_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "pecli.core.certificate._fused",
    "The certificate's compiled pass (docs/exactness.md): consecutive, ends_differ.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__fused(void)
{
    use_avx2 = has_avx2();
    return PyModule_Create(&module);
}
