/* Scans and counts of the typed fast path (memorywire._fast), and the
 * packing of float32 values the service stores and the sums of their
 * squares (float32_bytes, float32_sum_squares), in C.
 *
 * The fast path decodes a document with msgspec into dicts typed by the
 * field tables; msgspec keeps the last of repeated members and passes over
 * unknown ones. These functions prove that it lost none: the bytes hold as
 * many object members (map entries) as the decoded tree, and nothing the
 * types cannot judge. Each reads only within its input, whatever the input;
 * when unsure it says so, and the walkers judge the document.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* json_scan(data) -> (members, clean) | None: the number of object members
 * of a JSON text (its colons outside strings) and whether it holds neither
 * an escape nor the byte DEL (then no string holds a control character: a
 * parser refuses the others raw); None when the text holds the integer
 * token -0 (the walkers read it as -0.0 in a float field) or a member name
 * with an escape (decoded names could repeat unseen). */
static PyObject *
json_scan(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *p = (const unsigned char *)view.buf;
    const Py_ssize_t n = view.len;
    Py_ssize_t i = 0;
    long long members = 0;
    int escaped_name = 0; /* whether the last string held a backslash */
    int unsure = 0, escapes = 0, clean = 0;
    Py_BEGIN_ALLOW_THREADS
    while (i < n) {
        const unsigned char c = p[i];
        if (c == '"') {
            /* A string: find its closing quote, stepping over escapes.
             * Each byte is searched once: q is searched for again only
             * when an escape has stepped over it. */
            const unsigned char *end = p + n, *s = p + i + 1, *q = NULL;
            int backslash = 0;
            for (;;) {
                if (q == NULL || q < s)
                    q = memchr(s, '"', (size_t)(end - s));
                if (q == NULL) {
                    s = end;
                    break;
                }
                const unsigned char *b = memchr(s, '\\', (size_t)(q - s));
                if (b == NULL) {
                    s = q + 1;
                    break;
                }
                backslash = 1;
                s = b + 2; /* the backslash and the byte it escapes */
                if (s >= end) {
                    s = end;
                    break;
                }
            }
            i = s - p;
            escaped_name = backslash;
            escapes |= backslash;
            continue;
        }
        if (c == ':') {
            members++;
            if (escaped_name) {
                unsure = 1;
                break;
            }
        }
        else if (c == '-') {
            /* -0 not followed by a fraction, an exponent or a digit. */
            if (i + 1 < n && p[i + 1] == '0') {
                if (i + 2 >= n) {
                    unsure = 1;
                    break;
                }
                const unsigned char d = p[i + 2];
                if (d != '.' && d != 'e' && d != 'E' && !(d >= '0' && d <= '9')) {
                    unsure = 1;
                    break;
                }
            }
        }
        i++;
    }
    clean = !escapes && memchr(p, 0x7f, (size_t)n) == NULL;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (unsure)
        Py_RETURN_NONE;
    return Py_BuildValue("(LO)", members, clean ? Py_True : Py_False);
}

/* The deepest nesting msgpack_scan follows; deeper documents are unsure. */
#define MSGPACK_STACK 512

static inline uint64_t
big_endian(const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int k = 0; k < size; k++)
        v = (v << 8) | p[k];
    return v;
}

/* msgpack_scan(data) -> (members, timestamps, clean) | None: the number of
 * map entries of one MessagePack object at the start of data, the number of
 * its timestamp extensions, and whether no string (key or value) holds a
 * control character (U+0000 to U+001F, U+007F); None when it is malformed or truncated, nests
 * beyond MSGPACK_STACK, has a map key that is not a string, an extension
 * other than a timestamp, or a timestamp of a fraction that is not whole
 * microseconds (a datetime cannot hold it). */
static PyObject *
msgpack_scan(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *p = (const unsigned char *)view.buf;
    const Py_ssize_t n = view.len;
    /* Each frame: the objects left in an array or map (a map's keys and
     * values both count) and whether it is a map. */
    uint64_t left[MSGPACK_STACK];
    unsigned char is_map[MSGPACK_STACK];
    int top = 0;
    Py_ssize_t i = 0;
    long long members = 0, timestamps = 0;
    int ok = 1, clean = 1;
    left[0] = 1;
    is_map[0] = 0;
    Py_BEGIN_ALLOW_THREADS
    while (ok) {
        while (top >= 0 && left[top] == 0)
            top--;
        if (top < 0)
            break;
        /* A key is the object at an even remaining count of a map. */
        const int key = is_map[top] && (left[top] % 2 == 0);
        left[top]--;
        if (i >= n) {
            ok = 0;
            break;
        }
        const unsigned char c = p[i++];
        uint64_t skip = 0;   /* payload bytes after the header */
        uint64_t items = 0;  /* objects the container holds */
        int container = 0;   /* 1 array, 2 map */
        int string = 0;
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
            /* fixint, nil, false, true */
        }
        else if (c >= 0xa0 && c <= 0xbf) {
            skip = c & 0x1f;
            string = 1;
        }
        else if (c >= 0x90 && c <= 0x9f) {
            items = c & 0x0f;
            container = 1;
        }
        else if (c >= 0x80 && c <= 0x8f) {
            items = c & 0x0f;
            container = 2;
        }
        else {
            int size = 0; /* bytes of a length that follows */
            switch (c) {
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xca: case 0xce: case 0xd2: skip = 4; break;
            case 0xcb: case 0xcf: case 0xd3: skip = 8; break;
            case 0xd9: size = 1; string = 1; break;
            case 0xda: size = 2; string = 1; break;
            case 0xdb: size = 4; string = 1; break;
            case 0xc4: size = 1; break;
            case 0xc5: size = 2; break;
            case 0xc6: size = 4; break;
            case 0xdc: size = 2; container = 1; break;
            case 0xdd: size = 4; container = 1; break;
            case 0xde: size = 2; container = 2; break;
            case 0xdf: size = 4; container = 2; break;
            case 0xd6: case 0xd7: case 0xc7: {
                /* Only the timestamp extension: 4, 8 or 12 bytes. */
                uint64_t len;
                if (c == 0xd6)
                    len = 4;
                else if (c == 0xd7)
                    len = 8;
                else {
                    if (i + 1 > n) {
                        ok = 0;
                        break;
                    }
                    len = p[i++];
                    if (len != 12) {
                        ok = 0;
                        break;
                    }
                }
                if (i + 1 + (Py_ssize_t)len > n || (signed char)p[i] != -1) {
                    ok = 0;
                    break;
                }
                const unsigned char *d = p + i + 1;
                uint64_t nanos = 0;
                if (len == 8)
                    nanos = big_endian(d, 4) >> 2;
                else if (len == 12)
                    nanos = big_endian(d, 4);
                if (nanos % 1000 != 0 || nanos >= 1000000000) {
                    ok = 0;
                    break;
                }
                timestamps++;
                skip = 1 + len;
                break;
            }
            default:
                ok = 0; /* never used (0xc1), other extensions */
            }
            if (!ok)
                break;
            if (size) {
                if (i + size > n) {
                    ok = 0;
                    break;
                }
                const uint64_t v = big_endian(p + i, size);
                i += size;
                if (container)
                    items = v;
                else
                    skip = v;
            }
        }
        if (key && !string) {
            ok = 0;
            break;
        }
        if (skip > (uint64_t)(n - i)) {
            ok = 0;
            break;
        }
        if (string && clean) {
            /* A control character is one byte in UTF-8, never part of another. */
            for (const unsigned char *c = p + i, *end = p + i + skip; c < end; c++) {
                if (*c < 0x20 || *c == 0x7f) {
                    clean = 0;
                    break;
                }
            }
        }
        i += (Py_ssize_t)skip;
        if (container) {
            if (container == 2) {
                members += (long long)items;
                items *= 2;
            }
            /* Every object takes a byte at least: more than the bytes left
             * cannot be there. */
            if (items > (uint64_t)(n - i)) {
                ok = 0;
                break;
            }
            if (items) {
                if (top + 1 >= MSGPACK_STACK) {
                    ok = 0;
                    break;
                }
                top++;
                left[top] = items;
                is_map[top] = container == 2;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (!ok)
        Py_RETURN_NONE;
    return Py_BuildValue("(LLO)", members, timestamps, clean ? Py_True : Py_False);
}

static PyObject *datetime_type;

/* The canonical spelling of a UTC datetime of the msgpack decoder (whole
 * microseconds), as memorywire._timestamp.format spells its instant: no
 * fraction when it is zero, else 3 or 6 digits. */
static PyObject *
timestamp_text(PyObject *dt)
{
    char text[40];
    const int us = PyDateTime_DATE_GET_MICROSECOND(dt);
    int n = snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", PyDateTime_GET_YEAR(dt),
                     PyDateTime_GET_MONTH(dt), PyDateTime_GET_DAY(dt), PyDateTime_DATE_GET_HOUR(dt),
                     PyDateTime_DATE_GET_MINUTE(dt), PyDateTime_DATE_GET_SECOND(dt));
    if (us == 0)
        n += snprintf(text + n, sizeof text - n, "Z");
    else if (us % 1000 == 0)
        n += snprintf(text + n, sizeof text - n, ".%03dZ", us / 1000);
    else
        n += snprintf(text + n, sizeof text - n, ".%06dZ", us);
    return PyUnicode_FromStringAndSize(text, n);
}

/* Count the members and datetimes of a tree; with texts, replace each
 * datetime by its canonical spelling. */
static int
count_tree(PyObject *v, long long *members, long long *datetimes, int texts)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyDict_Type) {
        if (Py_EnterRecursiveCall(" in tree_counts"))
            return -1;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        *members += PyDict_GET_SIZE(v);
        while (PyDict_Next(v, &pos, &key, &value)) {
            if ((PyObject *)Py_TYPE(value) == datetime_type) {
                (*datetimes)++;
                if (texts) {
                    PyObject *text = timestamp_text(value);
                    /* A new value of a present key: the iteration goes on. */
                    if (text == NULL || PyDict_SetItem(v, key, text) < 0) {
                        Py_XDECREF(text);
                        Py_LeaveRecursiveCall();
                        return -1;
                    }
                    Py_DECREF(text);
                }
            }
            else if (count_tree(value, members, datetimes, texts) < 0) {
                Py_LeaveRecursiveCall();
                return -1;
            }
        }
        Py_LeaveRecursiveCall();
    }
    else if (t == &PyList_Type) {
        if (Py_EnterRecursiveCall(" in tree_counts"))
            return -1;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(v); k++) {
            PyObject *item = PyList_GET_ITEM(v, k);
            if ((PyObject *)Py_TYPE(item) == datetime_type) {
                (*datetimes)++;
                if (texts) {
                    PyObject *text = timestamp_text(item);
                    if (text == NULL) {
                        Py_LeaveRecursiveCall();
                        return -1;
                    }
                    PyList_SET_ITEM(v, k, text);
                    Py_DECREF(item);
                }
            }
            else if (count_tree(item, members, datetimes, texts) < 0) {
                Py_LeaveRecursiveCall();
                return -1;
            }
        }
        Py_LeaveRecursiveCall();
    }
    else if ((PyObject *)t == datetime_type) {
        (*datetimes)++;
    }
    return 0;
}

/* tree_counts(tree, texts=False) -> (members, datetimes): the members of
 * every dict in a tree of dicts and lists, and the datetimes in it; with
 * texts, each datetime in a dict or list becomes its canonical spelling. */
static PyObject *
tree_counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "tree_counts takes 1 or 2 arguments");
        return NULL;
    }
    int texts = 0;
    if (nargs == 2 && (texts = PyObject_IsTrue(args[1])) < 0)
        return NULL;
    long long members = 0, datetimes = 0;
    if (count_tree(args[0], &members, &datetimes, texts) < 0)
        return NULL;
    return Py_BuildValue("(LL)", members, datetimes);
}

static int
value_in_rules(PyObject *v, long depth, long max_depth, Py_ssize_t max_items, Py_ssize_t max_chars);

/* The bounds of memorywire._fast.value_ok. */
#define LARGE_FLOAT 9.2e18

static int
value_in_rules(PyObject *v, long depth, long max_depth, Py_ssize_t max_items, Py_ssize_t max_chars)
{
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type)
        return PyUnicode_GET_LENGTH(v) <= max_chars;
    if (t == &PyLong_Type) {
        int overflow = 0;
        (void)PyLong_AsLongLongAndOverflow(v, &overflow);
        return overflow == 0; /* INT64_MIN..INT64_MAX */
    }
    if (t == &PyFloat_Type) {
        const double d = PyFloat_AS_DOUBLE(v);
        return -LARGE_FLOAT < d && d < LARGE_FLOAT;
    }
    if (t == &PyBool_Type || v == Py_None)
        return 1;
    if (t == &PyDict_Type) {
        if (depth > max_depth || PyDict_GET_SIZE(v) > max_items)
            return 0;
        if (Py_EnterRecursiveCall(" in value_ok"))
            return -1;
        Py_ssize_t pos = 0;
        PyObject *key, *x;
        int r = 1;
        while (r == 1 && PyDict_Next(v, &pos, &key, &x)) {
            if (Py_TYPE(key) != &PyUnicode_Type || PyUnicode_GET_LENGTH(key) > max_chars)
                r = 0;
            else
                r = value_in_rules(x, depth + 1, max_depth, max_items, max_chars);
        }
        Py_LeaveRecursiveCall();
        return r;
    }
    if (t == &PyList_Type) {
        if (depth > max_depth || PyList_GET_SIZE(v) > max_items)
            return 0;
        if (Py_EnterRecursiveCall(" in value_ok"))
            return -1;
        int r = 1;
        for (Py_ssize_t k = 0; r == 1 && k < PyList_GET_SIZE(v); k++)
            r = value_in_rules(PyList_GET_ITEM(v, k), depth + 1, max_depth, max_items, max_chars);
        Py_LeaveRecursiveCall();
        return r;
    }
    return 0;
}

/* value_ok(v, depth, max_depth, max_items, max_chars) -> bool: as
 * memorywire._fast.value_ok. */
static PyObject *
value_ok(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "value_ok takes 5 arguments");
        return NULL;
    }
    long depth = PyLong_AsLong(args[1]);
    long max_depth = PyLong_AsLong(args[2]);
    Py_ssize_t max_items = PyLong_AsSsize_t(args[3]);
    Py_ssize_t max_chars = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    int r = value_in_rules(args[0], depth, max_depth, max_items, max_chars);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

/* The items ahead that float32_bytes asks the processor to load while it
 * converts one: a caller's floats are often far from the cache. */
#define PREFETCH 16
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_OBJECT(p) __builtin_prefetch((p))
#else
#define PREFETCH_OBJECT(p) ((void)(p))
#endif

/* float32_bytes(values) -> bytes | None: the little-endian binary32 bytes
 * of a list or tuple of floats, each rounded to binary32 by C's conversion,
 * which is what struct's 'f' format does; None when an item is not exactly
 * a float, is not finite, or is beyond binary32: the packer in Python
 * (memorywire.service.records.raw_values) decides those. No Python code
 * runs in the loop, so the items stay as they are while it reads them. */
static PyObject *
float32_bytes(PyObject *self, PyObject *arg)
{
    if (!PyList_CheckExact(arg) && !PyTuple_CheckExact(arg))
        Py_RETURN_NONE;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(arg);
    PyObject **items = PySequence_Fast_ITEMS(arg);
    if (n > PY_SSIZE_T_MAX / 4)
        Py_RETURN_NONE;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 4);
    if (out == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = items[i];
        if (i + PREFETCH < n)
            PREFETCH_OBJECT(items[i + PREFETCH]);
        if (!PyFloat_CheckExact(v))
            goto unsure;
        const double x = PyFloat_AS_DOUBLE(v);
        if (!isfinite(x))
            goto unsure;
        const float y = (float)x;
        if (isinf(y))
            goto unsure;
        uint32_t u;
        memcpy(&u, &y, sizeof u);
        p[0] = (unsigned char)u;
        p[1] = (unsigned char)(u >> 8);
        p[2] = (unsigned char)(u >> 16);
        p[3] = (unsigned char)(u >> 24);
        p += 4;
    }
    return out;
unsure:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

/* float32_sum_squares(raw) -> float | None: the sum of the squares of the
 * little-endian binary32 values of raw, each widened to binary64, added one
 * after the other in binary64 from the first (as numpy's add.accumulate
 * adds them); None when the length of raw is not a multiple of 4, or where
 * C evaluates doubles in a wider format, whose sums could differ. Each
 * square of a binary32 value is exact in binary64, so that a fused
 * multiply-add gives the same sum. */
static PyObject *
float32_sum_squares(PyObject *self, PyObject *arg)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len % 4 != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    const unsigned char *p = (const unsigned char *)view.buf;
    const Py_ssize_t n = view.len / 4;
    double sum = 0.0;
    for (Py_ssize_t i = 0; i < n; i++, p += 4) {
        const uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        float y;
        memcpy(&y, &u, sizeof y);
        const double w = (double)y;
        sum += w * w;
    }
    PyBuffer_Release(&view);
    return PyFloat_FromDouble(sum);
#else
    Py_RETURN_NONE;
#endif
}

static PyMethodDef methods[] = {
    {"json_scan", json_scan, METH_O, "The object members of a JSON text and whether it is clean, or None."},
    {"msgpack_scan", msgpack_scan, METH_O, "The map entries and timestamps of a MessagePack object, or None."},
    {"tree_counts", (PyCFunction)(void (*)(void))tree_counts, METH_FASTCALL,
     "The members of the dicts of a tree and its datetimes; with texts, datetimes become text."},
    {"value_ok", (PyCFunction)(void (*)(void))value_ok, METH_FASTCALL, "Whether a Value is within the rules."},
    {"float32_bytes", float32_bytes, METH_O, "The little-endian binary32 bytes of a list of floats, or None."},
    {"float32_sum_squares", float32_sum_squares, METH_O,
     "The sum of the squares of little-endian binary32 values, added in order in binary64, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "memorywire._speedups",
    "Scans and counts of the typed fast path, and the packing and sums of squares of float32 values.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    datetime_type = (PyObject *)PyDateTimeAPI->DateTimeType;
    Py_INCREF(datetime_type);
    return PyModule_Create(&module);
}
