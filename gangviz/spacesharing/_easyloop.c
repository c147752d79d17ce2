/* The two event loops of gangviz.spacesharing.backfill in C (optional speed-up): the EASY/FCFS
 * loop ``_easy`` and the conservative loop (the twin of ``_run`` in
 * gangviz.spacesharing.compiled, which equals ``_conservative``).
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
 *
 * conservative(arrival, size, est, run, P, small_max) -> (end, (lost, small, large), start,
 *     finish, reservation) or None
 *
 * A line-by-line translation of the numba loop ``_run`` (and its helpers ``_heap_push``,
 * ``_heap_pop``, ``_bp``, ``_earliest``): the booking profile on growable arrays, the same
 * floating-point operations in the same order, completions ordered by (finish, id). The same
 * inputs and None as for easy().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
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

/* Copy the four columns (floats; sizes exact ints that fit a long long); 0 when an entry is
 * not one, and the caller then lets the Python loop run. */
static int columns(PyObject *la, PyObject *ls, PyObject *le, PyObject *lr, Py_ssize_t n,
                   double *arrival, long long *size, double *est, double *run) {
    if (!floats(la, arrival, n) || !floats(le, est, n) || !floats(lr, run, n)) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(ls, i);
        int overflow = 0;
        if (!PyLong_CheckExact(o)) return 0;
        size[i] = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) return 0;
    }
    return 1;
}

/* A loop's start, after its allocations (allocated: all of them succeeded): 1 when the four
 * columns are copied into the arrays and the loop may run; otherwise 0 with *result set to
 * what the loop returns, NULL with MemoryError raised when an allocation failed, or None when
 * an entry is not a plain number (the Python loop then runs). */
static int read_columns(int allocated, PyObject *la, PyObject *ls, PyObject *le, PyObject *lr,
                        Py_ssize_t n, double *arrival, long long *size, double *est, double *run,
                        PyObject **result) {
    if (!allocated) {
        PyErr_NoMemory();
        *result = NULL;
        return 0;
    }
    if (!columns(la, ls, le, lr, n, arrival, size, est, run)) {
        Py_INCREF(Py_None);
        *result = Py_None;
        return 0;
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

/* The common length of the four columns, or -1 with a ValueError set when they differ. */
static Py_ssize_t column_length(PyObject *la, PyObject *ls, PyObject *le, PyObject *lr) {
    Py_ssize_t n = PyList_GET_SIZE(la);
    if (PyList_GET_SIZE(ls) != n || PyList_GET_SIZE(le) != n || PyList_GET_SIZE(lr) != n) {
        PyErr_SetString(PyExc_ValueError, "the four columns must have the same length");
        return -1;
    }
    return n;
}

/* The loops' result (end, (lost, small, large), start, finish, reservation), the lists None
 * where the have_ flags are 0 (NULL: every entry present); NULL with an exception set on error. */
static PyObject *result_of(double end, double lost, double lost_small, double lost_large,
                           Py_ssize_t n, const double *start, const char *have_start,
                           const double *finish, const char *have_finish, const double *resv,
                           const char *have_resv) {
    PyObject *st = float_list(start, have_start, n);
    PyObject *fi = float_list(finish, have_finish, n);
    PyObject *re = float_list(resv, have_resv, n);
    if (st && fi && re)
        return Py_BuildValue("d(ddd)NNN", end, lost, lost_small, lost_large, st, fi, re);
    Py_XDECREF(st);
    Py_XDECREF(fi);
    Py_XDECREF(re);
    return NULL;
}

/* What EASY's backfill pass reads and books into: the job columns and the running jobs. */
typedef struct {
    const long long *size;
    const double *est, *run;
    long long small_max;
    double *start_of;
    Pair *done_heap, *running;
    Py_ssize_t *nheap, *nrun, *n_small, *n_large;
} Easy;

/* EASY's backfill pass at time t (backfill.py's _backfill): start, in queue order from
 * queue[first] to queue[qt - 1], every job that fits in the free processors and either ends by
 * the shadow time (by its estimate) or fits in the extra processors, which it then uses up;
 * with stop_when_full the scan ends once no processor is free. Returns the new end of the
 * queue: the jobs left waiting keep their order. */
static Py_ssize_t backfill_pass(Easy *e, Py_ssize_t *queue, Py_ssize_t first, Py_ssize_t qt,
                                double t, double shadow, long long *free_, long long *extra,
                                int stop_when_full) {
    Py_ssize_t w = first;
    for (Py_ssize_t idx = first; idx < qt; idx++) {
        Py_ssize_t j = queue[idx];
        long long sz = e->size[j];
        if (sz <= *free_ && (t + e->est[j] <= shadow || sz <= *extra)) {
            *free_ -= sz;
            if (t + e->est[j] > shadow) *extra -= sz;
            e->start_of[j] = t;
            heap_push(e->done_heap, e->nheap, (Pair){t + e->run[j], j});
            run_insert(e->running, e->nrun, (Pair){t + e->est[j], j});
            if (sz <= e->small_max) (*e->n_small)--; else (*e->n_large)--;
            if (stop_when_full && *free_ == 0) {
                Py_ssize_t rest = qt - idx - 1;
                memmove(queue + w, queue + idx + 1, (size_t)rest * sizeof(Py_ssize_t));
                return w + rest;
            }
        } else {
            queue[w++] = j;
        }
    }
    return w;
}

static PyObject *easy(PyObject *self, PyObject *args) {
    PyObject *la, *ls, *le, *lr;
    long long P, small_max;
    int backfill;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!LLp", &PyList_Type, &la, &PyList_Type, &ls,
                          &PyList_Type, &le, &PyList_Type, &lr, &P, &small_max, &backfill))
        return NULL;
    Py_ssize_t n = column_length(la, ls, le, lr);
    if (n < 0)
        return NULL;
    Py_ssize_t m = n > 0 ? n : 1;
    double *arrival = malloc(m * sizeof(double)), *est = malloc(m * sizeof(double));
    double *run = malloc(m * sizeof(double)), *start_of = malloc(m * sizeof(double));
    double *finish_of = malloc(m * sizeof(double)), *resv = malloc(m * sizeof(double));
    long long *size = malloc(m * sizeof(long long));
    char *has_resv = calloc(m, 1);
    Py_ssize_t *queue = malloc(m * sizeof(Py_ssize_t));
    Pair *done_heap = malloc(m * sizeof(Pair)), *running = malloc(m * sizeof(Pair));
    PyObject *result = NULL;
    int allocated = arrival && est && run && start_of && finish_of && resv && size && has_resv
                    && queue && done_heap && running;
    if (!read_columns(allocated, la, ls, le, lr, n, arrival, size, est, run, &result))
        goto out;

    double lost = 0.0, lost_small = 0.0, lost_large = 0.0;
    Py_ssize_t nheap = 0, nrun = 0, qh = 0, qt = 0;  /* the queue is queue[qh:qt] */
    long long free_ = P, extra = 0;
    Py_ssize_t nxt = 0, finished = 0, n_small = 0, n_large = 0;
    double t_prev = 0.0, shadow = INFINITY;
    Easy lp = {size, est, run, small_max, start_of, done_heap, running, &nheap, &nrun, &n_small,
               &n_large};
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
            if (backfill && free_ > 0)
                qt = backfill_pass(&lp, queue, qh + waited, qt, t, shadow, &free_, &extra, 0);
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
        if (qt > qh && free_ > 0 && backfill)
            qt = backfill_pass(&lp, queue, qh + 1, qt, t, shadow, &free_, &extra, 1);
    }

    result = result_of(t_prev, lost, lost_small, lost_large, n, start_of, NULL, finish_of, NULL,
                       resv, has_resv);
out:
    free(arrival); free(est); free(run); free(start_of); free(finish_of); free(resv);
    free(size); free(has_resv); free(queue); free(done_heap); free(running);
    return result;
}


/* ---- conservative backfilling ---- */

/* bisect_left / bisect_right over times[0:n] (np.searchsorted side="left" / "right") */
static Py_ssize_t search_left(const double *a, Py_ssize_t n, double x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (a[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static Py_ssize_t search_right(const double *a, Py_ssize_t n, double x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (x < a[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/* the completion heap as two arrays, as _heap_push / _heap_pop of the numba loop */
static Py_ssize_t c_heap_push(double *ht, Py_ssize_t *hj, Py_ssize_t n, double t, Py_ssize_t j) {
    Py_ssize_t i = n;
    ht[i] = t;
    hj[i] = j;
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (ht[p] < ht[i] || (ht[p] == ht[i] && hj[p] <= hj[i])) break;
        double tt = ht[p]; ht[p] = ht[i]; ht[i] = tt;
        Py_ssize_t jj = hj[p]; hj[p] = hj[i]; hj[i] = jj;
        i = p;
    }
    return n + 1;
}

static Py_ssize_t c_heap_pop(double *ht, Py_ssize_t *hj, Py_ssize_t n) {
    n -= 1;
    ht[0] = ht[n];
    hj[0] = hj[n];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t lo = i, a = 2 * i + 1, b = a + 1;
        if (a < n && (ht[a] < ht[lo] || (ht[a] == ht[lo] && hj[a] < hj[lo]))) lo = a;
        if (b < n && (ht[b] < ht[lo] || (ht[b] == ht[lo] && hj[b] < hj[lo]))) lo = b;
        if (lo == i) break;
        double tt = ht[lo]; ht[lo] = ht[i]; ht[i] = tt;
        Py_ssize_t jj = hj[lo]; hj[lo] = hj[i]; hj[i] = jj;
        i = lo;
    }
    return n;
}

/* A breakpoint at t: its index; *k_n grows by one when it is new (the arrays have room). */
static Py_ssize_t c_bp(double *times, long long *usage, Py_ssize_t *k_n, double t) {
    Py_ssize_t n = *k_n, k = search_left(times, n, t);
    if (k < n && times[k] == t) return k;
    for (Py_ssize_t m = n; m > k; m--) {
        times[m] = times[m - 1];
        usage[m] = usage[m - 1];
    }
    times[k] = t;
    usage[k] = k > 0 ? usage[k - 1] : 0;
    *k_n = n + 1;
    return k;
}

static double c_earliest(const double *times, const long long *usage, Py_ssize_t k_n,
                         long long room, double duration, double limit, double oa, double ob,
                         long long osz) {
    Py_ssize_t ia = search_left(times, k_n, oa), ib = search_left(times, k_n, ob);
    Py_ssize_t i = 0;
    while (i < k_n) {
        double t = times[i];
        if (t >= limit) return INFINITY;
        long long u = (ia <= i && i < ib) ? usage[i] - osz : usage[i];
        if (u > room) {
            i++;
            continue;
        }
        double end = t + duration;
        Py_ssize_t j = i + 1;
        int ok = 1;
        while (j < k_n && times[j] < end) {
            u = (ia <= j && j < ib) ? usage[j] - osz : usage[j];
            if (u > room) {
                ok = 0;
                break;
            }
            j++;
        }
        if (ok) return t;
        i = j + 1;
    }
    return INFINITY;
}

/* make the profile arrays (and low) hold at least cap entries */
static int c_grow(double **times, long long **usage, long long **low, Py_ssize_t *cap_k) {
    Py_ssize_t cap = *cap_k * 2;
    double *nt = realloc(*times, cap * sizeof(double));
    if (!nt) return 0;
    *times = nt;
    long long *nu = realloc(*usage, cap * sizeof(long long));
    if (!nu) return 0;
    *usage = nu;
    long long *nl = realloc(*low, cap * sizeof(long long));
    if (!nl) return 0;
    *low = nl;
    *cap_k = cap;
    return 1;
}

static PyObject *conservative(PyObject *self, PyObject *args) {
    PyObject *la, *ls, *le, *lr;
    long long P, small_max;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!LL", &PyList_Type, &la, &PyList_Type, &ls,
                          &PyList_Type, &le, &PyList_Type, &lr, &P, &small_max))
        return NULL;
    Py_ssize_t n = column_length(la, ls, le, lr);
    if (n < 0)
        return NULL;
    Py_ssize_t m1 = n > 0 ? n : 1;
    Py_ssize_t cap_k = 64;
    double *arrival = malloc(m1 * sizeof(double)), *est = malloc(m1 * sizeof(double));
    double *run = malloc(m1 * sizeof(double)), *start = malloc(m1 * sizeof(double));
    double *finish = malloc(m1 * sizeof(double)), *first_res = malloc(m1 * sizeof(double));
    double *res = malloc(m1 * sizeof(double)), *start_of = calloc(m1, sizeof(double));
    double *ht = malloc((n + 1) * sizeof(double));
    Py_ssize_t *hj = malloc((n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *queue = malloc(m1 * sizeof(Py_ssize_t)), *tried = malloc(m1 * sizeof(Py_ssize_t));
    long long *size = malloc(m1 * sizeof(long long));
    double *times = malloc(cap_k * sizeof(double));
    long long *usage = calloc(cap_k, sizeof(long long)), *low = malloc(cap_k * sizeof(long long));
    char *have_start = calloc(m1, 1), *have_finish = calloc(m1, 1), *have_res = calloc(m1, 1);
    PyObject *result = NULL;
    int allocated = arrival && est && run && start && finish && first_res && res && start_of && ht
                    && hj && queue && tried && size && times && usage && low && have_start
                    && have_finish && have_res;
    if (!read_columns(allocated, la, ls, le, lr, n, arrival, size, est, run, &result))
        goto out;
    for (Py_ssize_t i = 0; i < n; i++) {
        res[i] = NAN;
        tried[i] = -1;  /* the release count when the job last failed to move */
    }

    Py_ssize_t h_n = 0, k_n = 1, q_n = 0, nxt = 0, finished = 0, n_small = 0, n_large = 0;
    long long releases = 0, free_ = P;
    double now = n ? arrival[0] : 0.0, t_prev = 0.0;
    double lost = 0.0, lost_small = 0.0, lost_large = 0.0;
    times[0] = now;
    while (finished < n) {
        double t_arr = nxt < n ? arrival[nxt] : INFINITY;
        double t_done = h_n ? ht[0] : INFINITY;
        double t = t_arr < t_done ? t_arr : t_done;
        if (q_n && t > t_prev) {
            double amount = (double)free_ * (t - t_prev);
            if (n_small > 0 || n_large > 0) lost += amount;
            if (n_small > 0) lost_small += amount;
            if (n_large > 0) lost_large += amount;
        }
        t_prev = t;
        /* advance the profile */
        if (t > now) {
            Py_ssize_t k = search_right(times, k_n, t) - 1;
            if (k > 0) {
                for (Py_ssize_t m = k; m < k_n; m++) {
                    times[m - k] = times[m];
                    usage[m - k] = usage[m];
                }
                k_n -= k;
            }
            times[0] = t;
            now = t;
        }
        /* make sure two breakpoints and a job's worth of bookings fit */
        if (k_n + 4 >= cap_k && !c_grow(&times, &usage, &low, &cap_k)) goto nomem;
        while (h_n && ht[0] <= t) {
            double fin = ht[0];
            Py_ssize_t j = hj[0];
            h_n = c_heap_pop(ht, hj, h_n);
            finish[j] = fin;
            have_finish[j] = 1;
            free_ += size[j];
            finished++;
            double b = start_of[j] + est[j];
            double a = t > now ? t : now;
            if (b > a) {
                Py_ssize_t ia = c_bp(times, usage, &k_n, a);
                Py_ssize_t ib = c_bp(times, usage, &k_n, b);
                for (Py_ssize_t m = ia; m < ib; m++) usage[m] -= size[j];
                releases++;
            }
            if (k_n + 4 >= cap_k && !c_grow(&times, &usage, &low, &cap_k)) goto nomem;
        }
        while (nxt < n && arrival[nxt] <= t) {
            queue[q_n++] = nxt;
            if (size[nxt] <= small_max) n_small++; else n_large++;
            nxt++;
        }
        /* drop the breakpoints where the usage does not change (see the numba loop) */
        Py_ssize_t kept = 1;
        for (Py_ssize_t m = 1; m < k_n; m++) {
            if (usage[m] != usage[kept - 1]) {
                times[kept] = times[m];
                usage[kept] = usage[m];
                kept++;
            }
        }
        k_n = kept;
        Py_ssize_t w = 0;
        int low_ok = 0;  /* low[m] = min(usage[0..m]), valid while the profile is unchanged */
        for (Py_ssize_t r = 0; r < q_n; r++) {
            Py_ssize_t j = queue[r];
            double e = est[j];
            long long sz = size[j];
            long long room = P - sz;
            double old = res[j];
            double when;
            int move = 0;
            if (k_n + 6 >= cap_k) {
                if (!c_grow(&times, &usage, &low, &cap_k)) goto nomem;
                low_ok = 0;
            }
            if (isnan(old)) {
                when = c_earliest(times, usage, k_n, P - sz, e, INFINITY, INFINITY, INFINITY, 0);
                double a = when > now ? when : now;
                if (when + e > a) {
                    Py_ssize_t ia = c_bp(times, usage, &k_n, a);
                    Py_ssize_t ib = c_bp(times, usage, &k_n, when + e);
                    for (Py_ssize_t m = ia; m < ib; m++) usage[m] += sz;
                    low_ok = 0;
                }
            } else {
                /* unless something was released since this job last failed to move, the
                 * profile has only gained bookings and lost its past: it still cannot move */
                if (old > t && tried[j] != releases) {
                    Py_ssize_t kk = search_left(times, k_n, old);
                    if (kk > 0) {
                        if (!low_ok) {
                            long long cur = usage[0];
                            for (Py_ssize_t m = 0; m < k_n; m++) {
                                if (usage[m] < cur) cur = usage[m];
                                low[m] = cur;
                            }
                            low_ok = 1;
                        }
                        move = low[kk - 1] <= room;
                    }
                }
                when = old;
                if (old > t && !move) tried[j] = releases;
                if (move) {
                    double cand = c_earliest(times, usage, k_n, room, e, old, old, old + e, sz);
                    if (cand < old) {
                        when = cand;
                        low_ok = 0;
                        double a = old > now ? old : now;
                        if (old + e > a) {
                            Py_ssize_t ia = c_bp(times, usage, &k_n, a);
                            Py_ssize_t ib = c_bp(times, usage, &k_n, old + e);
                            for (Py_ssize_t m = ia; m < ib; m++) usage[m] -= sz;
                            releases++;
                        }
                        a = when > now ? when : now;
                        if (when + e > a) {
                            Py_ssize_t ia = c_bp(times, usage, &k_n, a);
                            Py_ssize_t ib = c_bp(times, usage, &k_n, when + e);
                            for (Py_ssize_t m = ia; m < ib; m++) usage[m] += sz;
                        }
                    }
                }
            }
            if (when <= t) {
                free_ -= sz;
                start_of[j] = t;
                start[j] = t;
                have_start[j] = 1;
                h_n = c_heap_push(ht, hj, h_n, t + run[j], j);
                res[j] = NAN;
                if (sz <= small_max) n_small--; else n_large--;
            } else {
                if (when == old && move) tried[j] = releases;  /* nothing found before old */
                res[j] = when;
                if (!have_res[j]) {
                    have_res[j] = 1;
                    first_res[j] = when;
                }
                queue[w++] = j;
            }
        }
        q_n = w;
    }

    result = result_of(t_prev, lost, lost_small, lost_large, n, start, have_start, finish,
                       have_finish, first_res, have_res);
    goto out;
nomem:
    PyErr_NoMemory();
out:
    free(arrival); free(est); free(run); free(start); free(finish); free(first_res); free(res);
    free(start_of); free(ht); free(hj); free(queue); free(tried); free(size); free(times);
    free(usage); free(low); free(have_start); free(have_finish); free(have_res);
    return result;
}

/* A one-dimensional buffer of ``count`` items of the struct code ``code`` (native order), or
 * 0 (no error set: the caller declines) when ``obj`` is none. */
static int column_view(PyObject *obj, Py_buffer *view, char code, Py_ssize_t itemsize) {
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=') f++;
    if (!(view->ndim == 1 && view->itemsize == itemsize && f[0] == code && !f[1])) {
        if (code == 'q' && f[0] == 'l' && !f[1] && view->ndim == 1 && view->itemsize == itemsize)
            return 1;  /* int64 is 'l' where long is 64 bits */
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

/* set (``on``) or clear the bits [first, first + len) of ``bits``, a word at a time */
static void set_bits(uint64_t *bits, long long first, long long len, int on) {
    while (len > 0) {
        long long at = first % 64, k = 64 - at < len ? 64 - at : len;
        uint64_t mask = (k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1)) << at;
        if (on) bits[first / 64] |= mask;
        else bits[first / 64] &= ~mask;
        first += k;
        len -= k;
    }
}

static char *put_decimal(char *p, long long v) {
    char digits[24];
    int k = 0;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k) *p++ = digits[--k];
    return p;
}

/* place_columns(times, kinds, jobs, size, ends, P): the processors each job of a space-sharing
 * schedule held, as interval-set text (gangviz.results.placement.place_counts, the same
 * rule): the events (time, kind 0 = release / 1 = take, job) come in order; a take gets the
 * lowest-numbered free processors; a job whose end is not after its start holds nothing.
 * The columns are numpy arrays (C-contiguous): times float64, kinds int8, jobs int64 (one per
 * event), size int64 and ends float64 (one per job). Returns a list of str, one per job (""
 * for a job without a take), or with ``as_buffer`` true the same texts as one buffer,
 * ``(data, offsets)``: bytes, and the bytes of int64 offsets (one more than the jobs), text j
 * data[offsets[j]:offsets[j + 1]] (gangviz.results.texts.TextColumn); None when a column is
 * not of that type (the Python version then runs); ValueError when a take finds too few free
 * processors. */
static PyObject *place_columns(PyObject *self, PyObject *args) {
    PyObject *ot, *ok, *oj, *os, *oe;
    long long P;
    int as_buffer = 0;
    if (!PyArg_ParseTuple(args, "OOOOOL|p", &ot, &ok, &oj, &os, &oe, &P, &as_buffer)) return NULL;
    Py_buffer vt, vk, vj, vs, ve;
    int got = 0;
    PyObject *result = NULL, *out = NULL;
    uint64_t *free_bits = NULL;
    char *text = NULL, *held = NULL, *all = NULL;
    Py_ssize_t *run_at = NULL, *runs_of = NULL, *text_at = NULL, *text_len = NULL, cap = 1024, used = 0;
    size_t all_cap = 1 << 16, all_len = 0;
    long long *run_first = NULL, *run_len = NULL;
    if (column_view(ot, &vt, 'd', 8)) got = 1; else goto decline;
    if (column_view(ok, &vk, 'b', 1)) got = 2; else goto decline;
    if (column_view(oj, &vj, 'q', 8)) got = 3; else goto decline;
    if (column_view(os, &vs, 'q', 8)) got = 4; else goto decline;
    if (column_view(oe, &ve, 'd', 8)) got = 5; else goto decline;
    Py_ssize_t events = vt.shape[0], n = vs.shape[0];
    if (vk.shape[0] != events || vj.shape[0] != events || ve.shape[0] != n || P < 0) {
        PyErr_SetString(PyExc_ValueError, "place_columns: the event columns (and the job columns) must have one length");
        goto done;
    }
    const double *times = vt.buf, *ends = ve.buf;
    const int8_t *kinds = vk.buf;
    const int64_t *jobs = vj.buf, *sizes = vs.buf;
    Py_ssize_t words = (Py_ssize_t)((P + 63) / 64);
    if (!words) words = 1;
    /* the runs a job holds (first processor, length), from run_at[j], runs_of[j] of them */
    free_bits = calloc((size_t)words, sizeof(uint64_t));
    run_at = malloc(sizeof(Py_ssize_t) * (size_t)(n + 1));
    runs_of = calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    run_first = malloc(sizeof(long long) * (size_t)cap);
    run_len = malloc(sizeof(long long) * (size_t)cap);
    held = calloc((size_t)(n + 1), 1);
    text = malloc((size_t)(48 * (P + 1) + 16));
    /* every take's text, one after another, and where each job's last take put its own */
    all = malloc(all_cap);
    text_at = calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    text_len = calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    if (!free_bits || !run_at || !runs_of || !run_first || !run_len || !held || !text || !all || !text_at
        || !text_len) {
        PyErr_NoMemory();
        goto done;
    }
    set_bits(free_bits, 0, P, 1);
    for (Py_ssize_t e = 0; e < events; e++) {
        int64_t j = jobs[e];
        if (j < 0 || j >= n) goto decline;
        if (kinds[e] == 0) {
            if (!held[j]) continue;
            for (Py_ssize_t r = run_at[j]; r < run_at[j] + runs_of[j]; r++)
                set_bits(free_bits, run_first[r], run_len[r], 1);
            held[j] = 0;
            continue;
        }
        long long need = sizes[j];
        double t = times[e];
        char *at = text;
        Py_ssize_t w = 0;
        run_at[j] = used;
        runs_of[j] = 0;
        while (need > 0) {
            while (w < words && !free_bits[w]) w++;
            if (w >= words) {
                char message[128];  /* (PyErr_Format has no %g) */
                snprintf(message, sizeof message, "the schedule runs more than %lld processors at time %g", P, t);
                PyErr_SetString(PyExc_ValueError, message);
                goto done;
            }
            /* the lowest run of free processors: up to ``need`` of them, a word at a time */
            long long first = (long long)w * 64 + __builtin_ctzll(free_bits[w]), p = first;
            while (need > 0 && p < P) {
                uint64_t word = free_bits[p / 64] >> (p % 64);
                long long ones = ~word ? __builtin_ctzll(~word) : 64 - p % 64;
                if (ones > 64 - p % 64) ones = 64 - p % 64;
                if (ones > need) ones = need;
                if (!ones) break;
                p += ones;
                need -= ones;
                if (p % 64) break;  /* the run ended inside this word */
            }
            set_bits(free_bits, first, p - first, 0);
            if (used == cap) {
                cap *= 2;
                long long *f2 = realloc(run_first, sizeof(long long) * (size_t)cap);
                if (f2) run_first = f2;
                long long *l2 = realloc(run_len, sizeof(long long) * (size_t)cap);
                if (l2) run_len = l2;
                if (!f2 || !l2) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
            run_first[used] = first;
            run_len[used] = p - first;
            used++;
            runs_of[j]++;
            if (at != text) *at++ = ' ';
            at = put_decimal(at, first);
            if (p - first > 1) {
                *at++ = '-';
                at = put_decimal(at, p - 1);
            }
        }
        size_t len = (size_t)(at - text);
        if (all_len + len > all_cap) {
            while (all_len + len > all_cap) all_cap *= 2;
            char *grown = realloc(all, all_cap);
            if (!grown) {
                PyErr_NoMemory();
                goto done;
            }
            all = grown;
        }
        memcpy(all + all_len, text, len);
        text_at[j] = (Py_ssize_t)all_len;  /* (an earlier take's text is dropped) */
        text_len[j] = (Py_ssize_t)len;
        all_len += len;
        if (ends[j] > t) {
            held[j] = 1;
        } else {  /* a job of no length holds nothing */
            for (Py_ssize_t r = run_at[j]; r < run_at[j] + runs_of[j]; r++)
                set_bits(free_bits, run_first[r], run_len[r], 1);
        }
    }
    if (as_buffer) {  /* the texts in job order, and their offsets */
        Py_ssize_t total = 0;
        for (Py_ssize_t j = 0; j < n; j++) total += text_len[j];
        PyObject *data = PyBytes_FromStringAndSize(NULL, total);
        PyObject *offsets = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * (n + 1));
        if (!data || !offsets) {
            Py_XDECREF(data);
            Py_XDECREF(offsets);
            goto done;
        }
        char *d = PyBytes_AS_STRING(data);
        int64_t *o = (int64_t *)PyBytes_AS_STRING(offsets), w = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            o[j] = w;
            memcpy(d + w, all + text_at[j], (size_t)text_len[j]);
            w += text_len[j];
        }
        o[n] = w;
        result = PyTuple_Pack(2, data, offsets);
        Py_DECREF(data);
        Py_DECREF(offsets);
        goto done;
    }
    out = PyList_New(n);
    if (!out) goto done;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *s = PyUnicode_FromStringAndSize(all + text_at[j], text_len[j]);
        if (!s) goto done;
        PyList_SET_ITEM(out, j, s);
    }
    result = out;
    out = NULL;
    goto done;
decline:
    Py_INCREF(Py_None);
    result = Py_None;
done:
    Py_XDECREF(out);
    if (got >= 1) PyBuffer_Release(&vt);
    if (got >= 2) PyBuffer_Release(&vk);
    if (got >= 3) PyBuffer_Release(&vj);
    if (got >= 4) PyBuffer_Release(&vs);
    if (got >= 5) PyBuffer_Release(&ve);
    free(free_bits); free(run_at); free(runs_of); free(run_first); free(run_len); free(held); free(text);
    free(all); free(text_at); free(text_len);
    return result;
}

static PyMethodDef methods[] = {
    {"easy", easy, METH_VARARGS,
     "easy(arrival, size, est, run, P, small_max, backfill) -> (end, (lost, small, large), "
     "start, finish, reservation), or None when an entry is not a float (size: int)."},
    {"conservative", conservative, METH_VARARGS,
     "conservative(arrival, size, est, run, P, small_max) -> (end, (lost, small, large), "
     "start, finish, reservation), or None when an entry is not a float (size: int)."},
    {"place_columns", place_columns, METH_VARARGS,
     "place_columns(times, kinds, jobs, size, ends, P, as_buffer=False) -> the processors of each job as "
     "interval-set text, or None when a column is not of the type expected."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_easyloop",
    "The EASY/FCFS and conservative loops of gangviz.spacesharing.backfill in C (optional).", -1, methods
};

PyMODINIT_FUNC PyInit__easyloop(void) { return PyModule_Create(&module); }
