/* The text of a per-job table's rows in C (optional speed-up of gangviz.results.jobs).
 *
 * rows(columns, sep, quote) -> bytes, or None
 *
 * Every row is its cells, one per column, joined by ``sep`` (one ASCII character) and ended by
 * "\n"; the rows are returned as one bytes object, the text joined_rows gives from the cells of
 * csv_cells (``quote`` true) or number_cells (``quote`` false), byte for byte:
 *
 * - a float column: NaN as nothing, a whole number below 2**53 in magnitude as an integer
 *   ("3", "-0.0" as "0"), any other value as Python's repr (PyOS_double_to_string with 'r',
 *   the function float.__repr__ calls: "0.5", "inf", "1e+16");
 * - an integer or bool column: the integer (a bool as 0 or 1);
 * - a text column: its UTF-8 bytes, without NUL characters (the Python path drops them as
 *   padding); with ``quote``, a cell holding a comma or a double quote is written between
 *   double quotes, each double quote doubled (the CSV rule of _csv_text).
 *
 * A column is one of: ``bytes``, the same cell on every row (written as given, never quoted:
 * the caller gives it as it must appear); a list of str; an object with the buffer protocol,
 * one-dimensional, of format 'd' (float64), an integer format ('b', 'h', 'i', 'l', 'q' and
 * the unsigned twins of the first three), '?' (bool), 'Nw' (a numpy str array: UCS4 code
 * points), 'Ns' (a numpy bytes array) or 'O' (a numpy object array, of str), strided or not;
 * or a tuple ``(data, offsets)`` of texts kept in one buffer (gangviz.results.texts.TextColumn):
 * ``data`` contiguous bytes (format 'B', 'b' or 'c'), ``offsets`` contiguous int64, one more
 * than the rows, cell i the UTF-8 bytes data[offsets[i]:offsets[i + 1]] (an offset outside
 * ``data`` or going back raises ValueError). Anything else, or a byte order not native, returns None:
 * the caller then builds the text with numpy. Raises ValueError when the columns differ in
 * length or ``sep`` is not one ASCII character. Plain C API only, no numpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

enum kind { CONST, FLOAT, INT, UINT, BOOL, UCS4, BYTES, LIST, OBJECT, SPANS };

typedef struct {
    enum kind kind;
    PyObject *obj;          /* the column (borrowed) */
    Py_buffer view;         /* for the buffer kinds (SPANS: the data) */
    int has_view;
    Py_buffer offsets;      /* SPANS: the offsets */
    int has_offsets;
    const char *data;       /* CONST: the cell */
    Py_ssize_t len;         /* CONST: its length; buffers: rows */
    Py_ssize_t stride, itemsize;
} Column;

/* the text so far: the buffer of ``bytes`` (allocated ahead, shrunk at the end), or NULL */
typedef struct { char *p; size_t len, cap; PyObject *bytes; } Out;

/* the most bytes a number's cell takes: "-9223372036854775808", or a repr ("-1e-05",
 * "-2.2250738585072014e-308") */
#define CELL_MAX 32

static int grow(Out *o, size_t more) {
    if (o->len + more <= o->cap) return 0;
    size_t cap = o->cap ? o->cap : 1 << 16;
    while (cap < o->len + more) cap *= 2;
    if (cap > (size_t)PY_SSIZE_T_MAX) {
        PyErr_NoMemory();
        return -1;
    }
    if (!o->bytes) {
        o->bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
        if (!o->bytes) return -1;
    } else if (_PyBytes_Resize(&o->bytes, (Py_ssize_t)cap) < 0) {  /* (a large block: mremap) */
        return -1;
    }
    o->p = PyBytes_AS_STRING(o->bytes);
    o->cap = cap;
    return 0;
}

static const char PAIRS[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* the digits of u, written at o's end (room for 21 bytes checked by the caller), two at a
 * time from the last, straight to their place */
static void put_uint(Out *o, unsigned long long u) {
    int nd = 1;
    for (unsigned long long x = u; x >= 10; x /= 10) nd++;
    char *p = o->p + o->len + nd;
    o->len += (size_t)nd;
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        p -= 2;
        p[0] = PAIRS[2 * r];
        p[1] = PAIRS[2 * r + 1];
    }
    if (u >= 10) {
        p[-2] = PAIRS[2 * u];
        p[-1] = PAIRS[2 * u + 1];
    } else {
        p[-1] = (char)('0' + u);
    }
}

static void put_int(Out *o, long long v) {
    if (v < 0) o->p[o->len++] = '-';
    put_uint(o, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

/* The shortest repr of a double v with 1e-3 <= v < 2**53 (not a whole number), written at
 * o's end (room for 40 bytes checked by the caller), found with exact integer arithmetic in
 * 128 bits: the text float.__repr__ gives (David Gay's shortest mode), for the values a job
 * table holds most; returns 0 when v lies outside that range (the caller then calls
 * PyOS_double_to_string).
 *
 * v = m 2^e; the doubles nearest v round to it on [L, U] 2^(e-2), L = 4m - 2 (4m - 1 at a
 * power of two, where the gap below is half the one above), U = 4m + 2, the ends included
 * when m is even (strtod rounds a tie to even). The shortest decimal in that interval is a
 * multiple c 10^s of the largest power 10^s that has a multiple in it; of those multiples the
 * one nearest v, a tie to the even c (Gay's rounding of the last digit). Python then writes
 * the digits of c with the point decpt = digits + s places from the left, in fixed notation
 * for -4 < decpt <= 16 (always here), ".0" added to a whole number. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static const uint64_t POW10[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL,
};

static u128 pow10_128(int n) {  /* n <= 38 */
    return n < 20 ? (u128)POW10[n] : (u128)POW10[19] * POW10[n - 19];
}

/* The multiples c 10^s in [L, U] / 2^k (the ends when ``inclusive``): whether there is one,
 * and the first and last c. s in -21..18 and k in 2..80 (below 64 when s >= 0); L and U
 * below 2^56, so that L 10^21 fits in 128 bits. */
static int multiples(uint64_t L, uint64_t U, int k, int inclusive, int s, u128 *first, u128 *last) {
    u128 q, r;
    int lo_exact, hi_exact;
    if (s >= 0) {  /* (v >= 0.1 then: k < 64) floor(X / 2^k / 10^s), in 64 bits */
        uint64_t mask = ((uint64_t)1 << k) - 1, p = POW10[s];
        uint64_t lh = L >> k, uh = U >> k, ql = lh / p, qu = uh / p;
        q = ql;
        r = qu;
        lo_exact = (L & mask) == 0 && ql * p == lh;
        hi_exact = (U & mask) == 0 && qu * p == uh;
    } else {
        u128 mask = ((u128)1 << k) - 1;
        u128 lo = (u128)L * pow10_128(-s), hi = (u128)U * pow10_128(-s);
        q = lo >> k;
        r = hi >> k;
        lo_exact = (lo & mask) == 0;
        hi_exact = (hi & mask) == 0;
    }
    *first = lo_exact && inclusive ? q : q + 1;
    *last = hi_exact && !inclusive ? r - 1 : r;
    return *first <= *last && !(hi_exact && !inclusive && r == 0);
}

static size_t short_repr(double v, char *text) {
    if (!(v >= 1e-3 && v < 9007199254740992.0)) return 0;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int exp = (int)(bits >> 52);
    uint64_t mant = bits & ((1ULL << 52) - 1), m = mant | (1ULL << 52);
    int k = 1075 - exp + 2;  /* the values are X / 2^k */
    if (k < 2 || k > 80) return 0;
    uint64_t L = 4 * m - (mant == 0 ? 1 : 2), U = 4 * m + 2, V = 4 * m;
    int inclusive = !(m & 1);
    /* the largest s with a multiple: 18 digits always have one (s = top - 18), a power of ten
     * above U none (s = top; log10 is off by at most one here). Most values of a table need
     * all 17 digits: s = top - 17 is tried first, then the rest by bisection. */
    int top = (int)floor(log10(v)) + 2, lo_s = top - 18, hi_s = top;
    u128 first, last;
    if (lo_s < -21 || hi_s > 18 || (k >= 64 && hi_s > 0)) return 0;
    if (multiples(L, U, k, inclusive, lo_s + 1, &first, &last)) {
        lo_s++;
        while (hi_s - lo_s > 1) {
            int mid = (lo_s + hi_s) / 2;
            if (multiples(L, U, k, inclusive, mid, &first, &last)) lo_s = mid;
            else hi_s = mid;
        }
    }
    int s = lo_s;
    if (!multiples(L, U, k, inclusive, s, &first, &last)) return 0;  /* (never: 18 digits) */
    /* the multiple nearest v, a tie to the even one: v / 10^s = near + rem / step */
    u128 near, rem, step;
    if (s >= 0) {
        uint64_t vh = V >> k, p = POW10[s], nh = vh / p;
        near = nh;
        rem = ((u128)(vh - nh * p) << k) + (V & (((uint64_t)1 << k) - 1));
        step = (u128)p << k;
    } else {
        u128 vv = (u128)V * pow10_128(-s);
        step = (u128)1 << k;
        near = vv >> k;
        rem = vv & (step - 1);
    }
    if (rem * 2 > step || (rem * 2 == step && (near & 1))) near++;
    uint64_t c = (uint64_t)(near < first ? first : near > last ? last : near);
    while (c % 10 == 0) {  /* (not when 10^s is the largest power, but cheap to be sure) */
        c /= 10;
        s++;
    }
    char digits[24];
    int nd = 0;
    for (uint64_t x = c; x; x /= 10) digits[nd++] = (char)('0' + x % 10);
    int decpt = nd + s;
    if (decpt <= -4 || decpt > 16) return 0;
    size_t len = 0;
    if (decpt <= 0) {
        text[len++] = '0';
        text[len++] = '.';
        for (int i = 0; i < -decpt; i++) text[len++] = '0';
        while (nd) text[len++] = digits[--nd];
    } else if (decpt >= nd) {
        int zeros = decpt - nd;
        while (nd) text[len++] = digits[--nd];
        for (int i = 0; i < zeros; i++) text[len++] = '0';
        text[len++] = '.';
        text[len++] = '0';
    } else {
        for (int i = 0; i < decpt; i++) text[len++] = digits[--nd];
        text[len++] = '.';
        while (nd) text[len++] = digits[--nd];
    }
    return len;
}
#else
static size_t short_repr(double v, char *text) {
    (void)v;
    (void)text;
    return 0;
}
#endif

/* The last value written with repr and its text: a table's stretch and bounded slowdown are
 * most often one value, written a few cells apart. */
typedef struct { double value; char text[40]; size_t len; int valid; } ReprCache;

static int put_float(Out *o, double v, ReprCache *cache) {
    if (v != v) return 0;  /* NaN */
    if (fabs(v) < 9007199254740992.0 && (double)(long long)v == v) {  /* a whole number */
        put_int(o, (long long)v);
        return 0;
    }
    if (!(cache->valid && memcmp(&cache->value, &v, sizeof v) == 0)) {
        size_t short_len = short_repr(fabs(v), cache->text + (v < 0));
        if (short_len) {
            if (v < 0) cache->text[0] = '-';
            cache->value = v;
            cache->len = short_len + (v < 0);
            cache->valid = 1;
            goto write;
        }
        char *s = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (!s) return -1;
        size_t n = strlen(s);
        if (n >= sizeof cache->text) {  /* (repr of a double is at most 24 characters) */
            PyMem_Free(s);
            PyErr_SetString(PyExc_ValueError, "rows: a float's repr is too long");
            return -1;
        }
        memcpy(cache->text, s, n);
        PyMem_Free(s);
        cache->value = v;
        cache->len = n;
        cache->valid = 1;
    }
write:
    memcpy(o->p + o->len, cache->text, cache->len);
    o->len += cache->len;
    return 0;
}

/* UTF-8 text [s, s + n), NULs dropped, quoted when ``quote`` and it holds ',' or '"' */
static int put_text(Out *o, const char *s, Py_ssize_t n, int quote, size_t reserve) {
    int special = 0, nul = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ',' || c == '"') special = 1;
        else if (c == 0) nul = 1;
    }
    if (grow(o, 2 * (size_t)n + 2 + reserve) < 0) return -1;
    if (!(quote && special) && !nul) {
        memcpy(o->p + o->len, s, (size_t)n);
        o->len += (size_t)n;
        return 0;
    }
    int q = quote && special;
    if (q) o->p[o->len++] = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == 0) continue;
        if (q && c == '"') o->p[o->len++] = '"';
        o->p[o->len++] = c;
    }
    if (q) o->p[o->len++] = '"';
    return 0;
}

/* UCS4 code points [u, u + n) (trailing NULs are padding) as UTF-8 text */
static int put_ucs4(Out *o, const uint32_t *u, Py_ssize_t n, int quote, char *scratch,
                    size_t reserve) {
    while (n && u[n - 1] == 0) n--;
    if (grow(o, (size_t)n + reserve) < 0) return -1;
    Py_ssize_t i = 0;  /* plain ASCII (the usual cell) straight to the output */
    char *to = o->p + o->len;
    for (; i < n; i++) {
        uint32_t c = u[i];
        if (c >= 0x80 || c == 0 || c == ',' || c == '"') break;
        to[i] = (char)c;
    }
    if (i == n) {
        o->len += (size_t)n;
        return 0;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c = u[i];
        if (c < 0x80) {
            scratch[k++] = (char)c;
        } else if (c < 0x800) {
            scratch[k++] = (char)(0xC0 | (c >> 6));
            scratch[k++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c < 0xE000) {  /* a lone surrogate, as encoding it would */
                PyErr_SetString(PyExc_UnicodeEncodeError, "rows: a surrogate in a text cell");
                return -1;
            }
            scratch[k++] = (char)(0xE0 | (c >> 12));
            scratch[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
            scratch[k++] = (char)(0x80 | (c & 0x3F));
        } else {
            scratch[k++] = (char)(0xF0 | (c >> 18));
            scratch[k++] = (char)(0x80 | ((c >> 12) & 0x3F));
            scratch[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
            scratch[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    return put_text(o, scratch, k, quote, reserve);
}

/* Read a buffer column's format; 0 and kind set, or 1 when it is not one this file writes. */
static int buffer_kind(Column *c) {
    const char *f = c->view.format ? c->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') {
        if (*f == '<') {  /* little-endian named: native only on a little-endian machine */
            const uint16_t one = 1;
            if (*(const uint8_t *)&one != 1) return 1;
        }
        f++;
    } else if (*f == '>' || *f == '!') {
        return 1;
    }
    if (c->view.ndim != 1) return 1;
    c->len = c->view.shape[0];
    c->stride = c->view.strides ? c->view.strides[0] : c->view.itemsize;
    c->itemsize = c->view.itemsize;
    if (f[0] && !f[1]) {
        switch (f[0]) {
        case 'd': if (c->itemsize != 8) return 1; c->kind = FLOAT; return 0;
        case 'b': case 'h': case 'i': case 'l': case 'q': c->kind = INT; break;
        case 'B': case 'H': case 'I': case 'L': case 'Q': c->kind = UINT; break;
        case '?': c->kind = BOOL; break;
        case 's': c->kind = BYTES; return 0;
        case 'O': c->kind = OBJECT; return c->itemsize != sizeof(PyObject *);
        case 'w': c->kind = UCS4; return c->itemsize != 4;
        default: return 1;
        }
        if (c->kind == UINT && c->itemsize == 8) return 1;  /* numpy writes it as int64 */
        return !(c->itemsize == 1 || c->itemsize == 2 || c->itemsize == 4 || c->itemsize == 8);
    }
    /* 'Nw' or 'Ns' */
    const char *p = f;
    while (*p >= '0' && *p <= '9') p++;
    if (p == f || p[1]) return 1;
    if (*p == 's') c->kind = BYTES;
    else if (*p == 'w' && c->itemsize % 4 == 0) c->kind = UCS4;
    else return 1;
    return 0;
}

static long long int_at(const char *p, Py_ssize_t size) {
    switch (size) {
    case 1: return *(const int8_t *)p;
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static unsigned long long uint_at(const char *p, Py_ssize_t size) {
    switch (size) {
    case 1: return *(const uint8_t *)p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static PyObject *rows(PyObject *self, PyObject *args) {
    PyObject *columns;
    const char *sep_text;
    Py_ssize_t sep_len;
    int quote;
    if (!PyArg_ParseTuple(args, "O!s#p", &PyList_Type, &columns, &sep_text, &sep_len, &quote))
        return NULL;
    if (sep_len != 1 || (unsigned char)sep_text[0] >= 0x80) {
        PyErr_SetString(PyExc_ValueError, "rows: the separator must be one ASCII character");
        return NULL;
    }
    char sep = sep_text[0];
    Py_ssize_t m = PyList_GET_SIZE(columns), n = -1;
    Column *cols = calloc((size_t)(m ? m : 1), sizeof(Column));
    Out out = {NULL, 0, 0, NULL};
    char *scratch = NULL;
    size_t scratch_cap = 0;
    ReprCache cache = {0.0, {0}, 0, 0};
    PyObject *result = NULL;
    if (!cols) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < m; k++) {
        Column *c = &cols[k];
        PyObject *obj = PyList_GET_ITEM(columns, k);
        c->obj = obj;
        Py_ssize_t len;
        if (PyBytes_CheckExact(obj)) {
            c->kind = CONST;
            c->data = PyBytes_AS_STRING(obj);
            c->len = PyBytes_GET_SIZE(obj);
            continue;
        } else if (PyList_CheckExact(obj)) {
            c->kind = LIST;
            len = PyList_GET_SIZE(obj);
        } else if (PyTuple_CheckExact(obj) && PyTuple_GET_SIZE(obj) == 2) {
            c->kind = SPANS;
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(obj, 0), &c->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
                PyErr_Clear();
                goto decline;
            }
            c->has_view = 1;
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(obj, 1), &c->offsets, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
                PyErr_Clear();
                goto decline;
            }
            c->has_offsets = 1;
            const char *df = c->view.format ? c->view.format : "B", *of = c->offsets.format;
            if (df[0] == '=' || df[0] == '@') df++;
            if (!of) goto decline;
            if (of[0] == '=' || of[0] == '@') of++;
            if (c->view.ndim != 1 || c->view.itemsize != 1 || strchr("Bbc", df[0]) == NULL || df[1]
                || c->offsets.ndim != 1 || c->offsets.itemsize != 8 || strchr("ql", of[0]) == NULL || of[1]
                || c->offsets.shape[0] < 1)
                goto decline;
            c->stride = 0;
            len = c->offsets.shape[0] - 1;
        } else if (PyObject_CheckBuffer(obj)) {
            if (PyObject_GetBuffer(obj, &c->view, PyBUF_RECORDS_RO) < 0) {
                PyErr_Clear();
                goto decline;
            }
            c->has_view = 1;
            if (buffer_kind(c)) goto decline;
            len = c->len;
            if ((c->kind == UCS4 || c->kind == BYTES) && (size_t)c->itemsize + 8 > scratch_cap) {
                scratch_cap = 4 * (size_t)c->itemsize + 8;  /* a code point: at most 4 bytes */
                char *s = realloc(scratch, scratch_cap);
                if (!s) {
                    PyErr_NoMemory();
                    goto done;
                }
                scratch = s;
            }
        } else {
            goto decline;
        }
        if (n >= 0 && len != n) {
            PyErr_SetString(PyExc_ValueError, "rows: the columns must have one length");
            goto done;
        }
        n = len;
    }
    if (n < 0) n = 0;  /* constants only: no row */
    /* a row's room for its numbers, constants and separators, reserved once a row (a text
     * cell reserves its own and that much again) */
    size_t fixed = 0;
    for (Py_ssize_t k = 0; k < m; k++)
        fixed += (cols[k].kind == CONST ? (size_t)cols[k].len : CELL_MAX) + 1;
    /* room for every row's numbers ahead (pages never written cost nothing), shrunk at the end */
    size_t ahead = fixed * (size_t)n + 4096;
    if (n && grow(&out, ahead < ((size_t)1 << 28) ? ahead : ((size_t)1 << 28)) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (grow(&out, fixed) < 0) goto done;
        for (Py_ssize_t k = 0; k < m; k++) {
            Column *c = &cols[k];
            const char *at = c->has_view && c->kind != SPANS ? (const char *)c->view.buf + i * c->stride : NULL;
            if (at && i + 64 < n) __builtin_prefetch(at + 64 * c->stride);  /* many columns, many streams */
            switch (c->kind) {
            case CONST:
                memcpy(out.p + out.len, c->data, (size_t)c->len);
                out.len += (size_t)c->len;
                break;
            case FLOAT: {
                double v;
                memcpy(&v, at, sizeof v);
                if (put_float(&out, v, &cache) < 0) goto done;
                break;
            }
            case INT:
                put_int(&out, int_at(at, c->itemsize));
                break;
            case UINT:
                put_uint(&out, uint_at(at, c->itemsize));
                break;
            case BOOL:
                out.p[out.len++] = *at ? '1' : '0';
                break;
            case UCS4: {
                Py_ssize_t cp = c->itemsize / 4;
                if (((uintptr_t)at & 3) == 0) {  /* aligned (always, for numpy's own arrays) */
                    if (put_ucs4(&out, (const uint32_t *)at, cp, quote, scratch, fixed) < 0) goto done;
                    break;
                }
                uint32_t stack[64];
                uint32_t *codes = cp <= 64 ? stack : malloc(sizeof(uint32_t) * (size_t)cp);
                if (!codes) {
                    PyErr_NoMemory();
                    goto done;
                }
                memcpy(codes, at, (size_t)c->itemsize);
                int bad = put_ucs4(&out, codes, cp, quote, scratch, fixed);
                if (codes != stack) free(codes);
                if (bad < 0) goto done;
                break;
            }
            case BYTES: {
                Py_ssize_t len = c->itemsize;
                while (len && at[len - 1] == 0) len--;
                if (put_text(&out, at, len, quote, fixed) < 0) goto done;
                break;
            }
            case SPANS: {
                const int64_t *off = (const int64_t *)c->offsets.buf;
                int64_t a = off[i], b = off[i + 1];
                if (a < 0 || b < a || b > (int64_t)c->view.len) {
                    PyErr_SetString(PyExc_ValueError, "rows: a text's offsets lie outside its buffer");
                    goto done;
                }
                if (put_text(&out, (const char *)c->view.buf + a, (Py_ssize_t)(b - a), quote, fixed) < 0) goto done;
                break;
            }
            case LIST:
            case OBJECT: {
                PyObject *item;
                if (c->kind == LIST) item = PyList_GET_ITEM(c->obj, i);
                else memcpy(&item, at, sizeof item);  /* a numpy object array's own reference */
                if (!item) goto decline;
                Py_ssize_t len;
                const char *s;
                if (!PyUnicode_Check(item)) goto decline;
                if (PyUnicode_IS_COMPACT_ASCII(item)) {  /* the usual cell: its bytes as they are */
                    s = (const char *)PyUnicode_DATA(item);
                    len = PyUnicode_GET_LENGTH(item);
                } else {
                    s = PyUnicode_AsUTF8AndSize(item, &len);
                    if (!s) goto done;
                }
                if (put_text(&out, s, len, quote, fixed) < 0) goto done;
                break;
            }
            }
            out.p[out.len++] = k + 1 < m ? sep : '\n';
        }
    }
    if (!out.bytes) {
        result = PyBytes_FromStringAndSize("", 0);
    } else if (_PyBytes_Resize(&out.bytes, (Py_ssize_t)out.len) == 0) {
        result = out.bytes;
        out.bytes = NULL;
    }
    goto done;
decline:
    Py_INCREF(Py_None);
    result = Py_None;
done:
    for (Py_ssize_t k = 0; k < m; k++) {
        if (cols[k].has_view) PyBuffer_Release(&cols[k].view);
        if (cols[k].has_offsets) PyBuffer_Release(&cols[k].offsets);
    }
    free(cols);
    Py_XDECREF(out.bytes);
    free(scratch);
    return result;
}

static PyMethodDef methods[] = {
    {"rows", rows, METH_VARARGS,
     "rows(columns, sep, quote) -> the rows' text as bytes, or None when a column is not of a "
     "kind this module writes."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_rowtext",
    "The text of a per-job table's rows in C (optional speed-up of gangviz.results.jobs).", -1,
    methods
};

PyMODINIT_FUNC PyInit__rowtext(void) { return PyModule_Create(&module); }
