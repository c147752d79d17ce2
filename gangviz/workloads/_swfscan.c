/* The bulk reader of SWF job lines in C (optional speed-up of gangviz.workloads.swf).
 *
 * table(body, rows, fields, out) -> bool
 *
 * ``body`` is the job lines joined by "\n" (bytes); ``out`` a writable C-contiguous buffer of
 * rows * fields doubles. When ``body`` is exactly ``rows`` lines of exactly ``fields`` numbers
 * each, separated by the bytes " \t\v\f", it fills ``out`` row by row and returns True.
 * Anything else (a blank line, a missing or extra field, any other byte, a token outside the
 * number syntax below) returns False with ``out`` partly written: the caller then reads the
 * lines one by one, which names the line, field and token at fault.
 *
 * A number is Python's float syntax without underscores, infinities or NaNs:
 *     [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]
 * (the exact reader's _NUMBER_RE). Its value is the correctly rounded double, the one float()
 * and numpy.loadtxt give. A token whose digits make an integer m <= 2**53 and whose decimal
 * exponent e (after moving the point to the end) lies in -22..22 is m / 10**-e or m * 10**e:
 * both operands are exact doubles, so the one IEEE rounding of the division or product is
 * the correctly rounded value (Clinger's fast path). Any other token goes to
 * PyOS_string_to_double, the conversion float() itself uses. Plain C API only, no numpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static const double POW10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
#define MAX_EXACT ((uint64_t)1 << 53)

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Parse the token [p, end) into *value. Returns 1, 0 when it is not a number, -1 with a
 * Python error set when the conversion failed for another reason (memory). */
static int number(const char *p, const char *end, double *value) {
    const char *start = p;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    uint64_t m = 0;
    int digits = 0, exact = 1, after_point = 0;
    for (; p < end && is_digit(*p); p++, digits++) {
        if (m > (UINT64_MAX - 9) / 10) exact = 0; else m = m * 10 + (uint64_t)(*p - '0');
    }
    if (p < end && *p == '.') {
        for (p++; p < end && is_digit(*p); p++, digits++, after_point++) {
            if (m > (UINT64_MAX - 9) / 10) exact = 0; else m = m * 10 + (uint64_t)(*p - '0');
        }
    }
    if (digits == 0) return 0;  /* "", "+", ".", "-.": no digit in the mantissa */
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exp_negative = 0;
        if (p < end && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
        if (p == end || !is_digit(*p)) return 0;  /* "1e", "1e+" */
        for (; p < end && is_digit(*p); p++) {
            if (exponent < 100000) exponent = exponent * 10 + (*p - '0');
        }
        if (exp_negative) exponent = -exponent;
    }
    if (p != end) return 0;  /* a second point, a sign inside, "e" twice... */
    long e = exponent - after_point;
    if (exact && m <= MAX_EXACT && e >= -22 && e <= 22) {
        double v = (double)m;
        v = e < 0 ? v / POW10[-e] : v * POW10[e];
        *value = negative ? -v : v;
        return 1;
    }
    char *stop = NULL;
    double v = PyOS_string_to_double(start, &stop, NULL);
    if (v == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
        PyErr_Clear();
        return 0;
    }
    if (stop != end) return 0;
    *value = v;
    return 1;
}

static PyObject *table(PyObject *self, PyObject *args) {
    const char *body;
    Py_ssize_t length, rows, fields;
    PyObject *target;
    if (!PyArg_ParseTuple(args, "y#nnO", &body, &length, &rows, &fields, &target)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(target, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (rows < 0 || fields < 1 || view.len < rows * fields * (Py_ssize_t)sizeof(double)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "out must hold rows * fields doubles");
        return NULL;
    }
    double *out = (double *)view.buf;
    const char *p = body, *end = body + length;
    int ok = rows > 0;
    for (Py_ssize_t row = 0; ok && row < rows; row++) {
        for (Py_ssize_t f = 0; f < fields; f++) {
            while (p < end && is_space(*p)) p++;
            const char *q = p;
            while (q < end && *q != '\n' && !is_space(*q)) q++;
            if (q == p) { ok = 0; break; }  /* the line ends before its last field */
            int got = number(p, q, &out[row * fields + f]);
            if (got < 0) { PyBuffer_Release(&view); return NULL; }
            if (!got) { ok = 0; break; }
            p = q;
        }
        if (!ok) break;
        while (p < end && is_space(*p)) p++;
        if (row + 1 < rows) {
            if (p == end || *p != '\n') ok = 0;  /* an extra field, or too few lines */
            else p++;
        } else if (p != end) {
            ok = 0;  /* an extra field, or more lines */
        }
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"table", table, METH_VARARGS,
     "table(body, rows, fields, out) -> bool: read rows x fields numbers into out (see the "
     "module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_swfscan",
    "The bulk reader of SWF job lines (optional; gangviz.workloads.swf reads without it).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__swfscan(void) { return PyModule_Create(&module); }
