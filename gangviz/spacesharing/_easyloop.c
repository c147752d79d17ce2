/* The EASY/FCFS event loop of gangviz.spacesharing.backfill._easy, in C (optional speed-up).
 *
 * easy(arrival, size, est, run, P, small_max, backfill) -> (end, (lost, small, large),
 *     start, finish, reservation) or None
 *
 * It follows the Python loop step by step: the same floating-point operations in the same
 * order (so lost capacity sums bit for bit the same), the same tie-breaks (the running jobs
 * sorted by (predicted end, id), the completions by (finish, id)). Inputs are lists in priority
 * order: arrival, est and run of floats, size of ints. It returns None, and the caller runs the
 * Python loop, when an entry is not an exact float (or int for size), so the results always
 * have the types the Python loop gives. Plain C API only, no numpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double key; Py_ssize_t id; } Pair;

static int pair_lt(const Pair *a, const Pair *b) {
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static void heap_push(Pair *h, Py_ssize_t *len, Pair x) {
    Py_ssize_t i = (*len)++;
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (!pair_lt(&x, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static Pair heap_pop(Pair *h, Py_ssize_t *len) {
    Pair top = h[0], last = h[--(*len)];
    Py_ssize_t i = 0, n = *len;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && pair_lt(&h[c + 1], &h[c])) c++;
        if (!pair_lt(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (n > 0) h[i] = last;
    return top;
}

/* insort (bisect_right) into the sorted running list */
static void run_insert(Pair *r, Py_ssize_t *len, Pair x) {
    Py_ssize_t lo = 0, hi = *len;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (pair_lt(&x, &r[mid])) hi = mid; else lo = mid + 1;
    }
    memmove(r + lo + 1, r + lo, (size_t)(*len - lo) * sizeof(Pair));
    r[lo] = x;
    (*len)++;
}

/* del running[bisect_left(running, x)] */
static void run_remove(Pair *r, Py_ssize_t *len, Pair x) {
    Py_ssize_t lo = 0, hi = *len;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (pair_lt(&r[mid], &x)) lo = mid + 1; else hi = mid;
    }
    memmove(r + lo, r + lo + 1, (size_t)(*len - lo - 1) * sizeof(Pair));
    (*len)--;
}

/* Copy a list of exact floats into out; 0 when an entry is not one. */
static int floats(PyObject *list, double *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(list, i);
        if (!PyFloat_CheckExact(o)) return 0;
        out[i] = PyFloat_AS_DOUBLE(o);
    }
    return 1;
}

static PyObject *float_list(const double *v, const char *have, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o;
        if (have && !have[i]) {
            o = Py_None;
            Py_INCREF(o);
        } else if (!(o = PyFloat_FromDouble(v[i]))) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, o);
    }
    return list;
}

static PyObject *easy(PyObject *self, PyObject *args) {
    PyObject *la, *ls, *le, *lr;
    long long P, small_max;
    int backfill;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!LLp", &PyList_Type, &la, &PyList_Type, &ls,
                          &PyList_Type, &le, &PyList_Type, &lr, &P, &small_max, &backfill))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(la);
    if (PyList_GET_SIZE(ls) != n || PyList_GET_SIZE(le) != n || PyList_GET_SIZE(lr) != n) {
        PyErr_SetString(PyExc_ValueError, "the four columns must have the same length");
        return NULL;
    }
    Py_ssize_t m = n > 0 ? n : 1;
    double *arrival = malloc(m * sizeof(double)), *est = malloc(m * sizeof(double));
    double *run = malloc(m * sizeof(double)), *start_of = malloc(m * sizeof(double));
    double *finish_of = malloc(m * sizeof(double)), *resv = malloc(m * sizeof(double));
    long long *size = malloc(m * sizeof(long long));
    char *has_resv = calloc(m, 1);
    Py_ssize_t *queue = malloc(m * sizeof(Py_ssize_t));
    Pair *done_heap = malloc(m * sizeof(Pair)), *running = malloc(m * sizeof(Pair));
    PyObject *result = NULL;
    if (!arrival || !est || !run || !start_of || !finish_of || !resv || !size || !has_resv
        || !queue || !done_heap || !running) {
        PyErr_NoMemory();
        goto out;
    }
    if (!floats(la, arrival, n) || !floats(le, est, n) || !floats(lr, run, n)) {
        result = Py_None;
        Py_INCREF(result);
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(ls, i);
        int overflow = 0;
        if (!PyLong_CheckExact(o)) {
            result = Py_None;
            Py_INCREF(result);
            goto out;
        }
        size[i] = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            result = Py_None;
            Py_INCREF(result);
            goto out;
        }
    }

    double lost = 0.0, lost_small = 0.0, lost_large = 0.0;
    Py_ssize_t nheap = 0, nrun = 0, qh = 0, qt = 0;  /* the queue is queue[qh:qt] */
    long long free_ = P, extra = 0;
    Py_ssize_t nxt = 0, finished = 0, n_small = 0, n_large = 0;
    double t_prev = 0.0, shadow = INFINITY;
    while (finished < n) {
        double t_arr = nxt < n ? arrival[nxt] : INFINITY;
        double t_done = nheap ? done_heap[0].key : INFINITY;
        double t = t_arr < t_done ? t_arr : t_done;
        if (qt > qh && t > t_prev) {
            double amount = (double)free_ * (t - t_prev);
            lost += amount;
            if (n_small) lost_small += amount;
            if (n_large) lost_large += amount;
        }
        t_prev = t;
        if (t_done > t && qt > qh) {
            /* only arrivals, behind a head that still waits */
            Py_ssize_t waited = qt - qh;
            while (nxt < n && arrival[nxt] <= t) {
                queue[qt++] = nxt;
                if (size[nxt] <= small_max) n_small++; else n_large++;
                nxt++;
            }
            if (backfill && free_ > 0) {
                Py_ssize_t w = qh + waited;
                for (Py_ssize_t idx = qh + waited; idx < qt; idx++) {
                    Py_ssize_t j = queue[idx];
                    long long sz = size[j];
                    if (sz <= free_ && (t + est[j] <= shadow || sz <= extra)) {
                        free_ -= sz;
                        if (t + est[j] > shadow) extra -= sz;
                        start_of[j] = t;
                        heap_push(done_heap, &nheap, (Pair){t + run[j], j});
                        run_insert(running, &nrun, (Pair){t + est[j], j});
                        if (sz <= small_max) n_small--; else n_large--;
                    } else {
                        queue[w++] = j;
                    }
                }
                qt = w;
            }
            continue;
        }
        while (nheap && done_heap[0].key <= t) {
            Pair d = heap_pop(done_heap, &nheap);
            Py_ssize_t j = d.id;
            finish_of[j] = d.key;
            free_ += size[j];
            finished++;
            run_remove(running, &nrun, (Pair){start_of[j] + est[j], j});
        }
        while (nxt < n && arrival[nxt] <= t) {
            queue[qt++] = nxt;
            if (size[nxt] <= small_max) n_small++; else n_large++;
            nxt++;
        }
        if (qt == qh) continue;
        /* start jobs from the head while they fit */
        while (qh < qt && size[queue[qh]] <= free_) {
            Py_ssize_t j = queue[qh++];
            free_ -= size[j];
            start_of[j] = t;
            heap_push(done_heap, &nheap, (Pair){t + run[j], j});
            run_insert(running, &nrun, (Pair){t + est[j], j});
            if (size[j] <= small_max) n_small--; else n_large--;
        }
        shadow = INFINITY;
        extra = 0;
        if (qt > qh && backfill && (free_ > 0 || !has_resv[queue[qh]])) {
            /* the head's shadow time: when enough running jobs will have ended (by estimate) */
            Py_ssize_t head = queue[qh];
            long long need = size[head], avail = free_;
            for (Py_ssize_t idx = 0; idx < nrun; idx++) {
                avail += size[running[idx].id];
                if (avail >= need) {
                    double pe = running[idx].key;
                    for (Py_ssize_t k2 = idx + 1; k2 < nrun && running[k2].key == pe; k2++)
                        avail += size[running[k2].id];
                    shadow = pe;
                    extra = avail - need;
                    break;
                }
            }
            if (!has_resv[head]) {
                has_resv[head] = 1;
                resv[head] = shadow;
            }
        }
        if (qt > qh && free_ > 0 && backfill) {
            Py_ssize_t w = qh + 1;
            for (Py_ssize_t idx = qh + 1; idx < qt; idx++) {
                Py_ssize_t j = queue[idx];
                long long sz = size[j];
                if (sz <= free_ && (t + est[j] <= shadow || sz <= extra)) {
                    free_ -= sz;
                    if (t + est[j] > shadow) extra -= sz;
                    start_of[j] = t;
                    heap_push(done_heap, &nheap, (Pair){t + run[j], j});
                    run_insert(running, &nrun, (Pair){t + est[j], j});
                    if (sz <= small_max) n_small--; else n_large--;
                    if (free_ == 0) {
                        Py_ssize_t rest = qt - idx - 1;
                        memmove(queue + w, queue + idx + 1, (size_t)rest * sizeof(Py_ssize_t));
                        w += rest;
                        break;
                    }
                } else {
                    queue[w++] = j;
                }
            }
            qt = w;
        }
    }

    {
        PyObject *st = float_list(start_of, NULL, n);
        PyObject *fi = float_list(finish_of, NULL, n);
        PyObject *re = float_list(resv, has_resv, n);
        if (st && fi && re)
            result = Py_BuildValue("d(ddd)NNN", t_prev, lost, lost_small, lost_large, st, fi, re);
        else {
            Py_XDECREF(st);
            Py_XDECREF(fi);
            Py_XDECREF(re);
        }
    }
out:
    free(arrival); free(est); free(run); free(start_of); free(finish_of); free(resv);
    free(size); free(has_resv); free(queue); free(done_heap); free(running);
    return result;
}

static PyMethodDef methods[] = {
    {"easy", easy, METH_VARARGS,
     "easy(arrival, size, est, run, P, small_max, backfill) -> (end, (lost, small, large), "
     "start, finish, reservation), or None when an entry is not a float (size: int)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_easyloop",
    "The EASY/FCFS loop of gangviz.spacesharing.backfill in C (optional).", -1, methods
};

PyMODINIT_FUNC PyInit__easyloop(void) { return PyModule_Create(&module); }
