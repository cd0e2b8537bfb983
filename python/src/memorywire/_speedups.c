/* Scans and counts of the typed fast path (memorywire._fast), in C.
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

/* ------------------------------------------------------------------------
 * The canonical pass of the writers (memorywire._encode), in C.
 *
 * canonical_tables(tables, timestamp) reads the tables that
 * memorywire._encode derives from the field tables, one a message type:
 * (fields, walker, fallback), fields a list of (name, kind, repeated,
 * message, fn), kind how a member of the field changes in the canonical
 * form ("keep" where it does not). canonical(tables, index, doc) then does
 * what the generated function fallback does for the message type of that
 * index: a document with a default member goes to the walker; else the
 * document itself where no member changes, or a copy with the changed
 * members. Whatever is not a dict or list where one is expected goes to the
 * Python functions, which give the same result or raise the same error.
 * canonical_msgpack writes the bytes of that form itself (below).
 */

enum { CANON_MESSAGE, CANON_TS_JS, CANON_TS_MP, CANON_DOUBLE, CANON_CALL, CANON_KEEP, CANON_VECTOR_MP };

typedef struct {
    int kind;
    int repeated;
    int rank;           /* the place of its name among the names of the type, by code point */
    Py_ssize_t message; /* CANON_MESSAGE: the index of its type */
    PyObject *fn;       /* the Python function of one value (the whole vector of a float32 vector) */
} CanonField;

/* Slots of the cache of member names of a message type: 2 to the power
 * CANON_CACHE_BITS. */
#define CANON_CACHE_BITS 6
#define CANON_CACHE (1 << CANON_CACHE_BITS)

typedef struct {
    PyObject *names; /* dict: member name -> index in fields */
    CanonField *fields;
    Py_ssize_t nfields;
    Py_ssize_t nchange; /* the fields whose members change (not CANON_KEEP) */
    /* The names last met, held, and their index in fields or -1: the
     * documents of a process use few string objects as names, and one
     * held is not another. */
    PyObject *cache_key[CANON_CACHE];
    Py_ssize_t cache_index[CANON_CACHE];
    PyObject *walker;   /* for a document with a default member */
    PyObject *fallback; /* the generated Python function of the message type */
} CanonMessage;

typedef struct {
    Py_ssize_t n;
    CanonMessage *messages;
    PyObject *timestamp; /* the type of the timestamps of the walkers (seconds, nanoseconds), or NULL */
} CanonTables;

#define CANON_CAPSULE "memorywire._speedups.canonical_tables"

static void
canon_free(CanonTables *t)
{
    for (Py_ssize_t i = 0; i < t->n; i++) {
        CanonMessage *msg = &t->messages[i];
        Py_XDECREF(msg->names);
        Py_XDECREF(msg->walker);
        Py_XDECREF(msg->fallback);
        for (Py_ssize_t k = 0; k < msg->nfields; k++)
            Py_XDECREF(msg->fields[k].fn);
        for (int k = 0; k < CANON_CACHE; k++)
            Py_XDECREF(msg->cache_key[k]);
        PyMem_Free(msg->fields);
    }
    PyMem_Free(t->messages);
    Py_XDECREF(t->timestamp);
    PyMem_Free(t);
}

static void
canon_capsule_free(PyObject *capsule)
{
    CanonTables *t = PyCapsule_GetPointer(capsule, CANON_CAPSULE);
    if (t != NULL)
        canon_free(t);
}

static int
canon_kind(PyObject *name)
{
    static const char *const kinds[] = {"message", "timestamp_js", "timestamp_mp", "double", "call", "keep",
                                        "vector_mp"};
    const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (text != NULL)
        for (int k = 0; k < (int)(sizeof kinds / sizeof *kinds); k++)
            if (strcmp(text, kinds[k]) == 0)
                return k;
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "no canonical kind %R", name);
    return -1;
}

/* canonical_tables(tables, timestamp=None) -> capsule: the tables, checked
 * once; timestamp: the type of the timestamps the walkers give for
 * MessagePack, with attributes seconds and nanoseconds. */
static PyObject *
canonical_tables(PyObject *self, PyObject *args)
{
    PyObject *arg, *timestamp = Py_None;
    if (!PyArg_ParseTuple(args, "O!|O:canonical_tables", &PyList_Type, &arg, &timestamp))
        return NULL;
    const Py_ssize_t n = PyList_GET_SIZE(arg);
    CanonTables *t = PyMem_Calloc(1, sizeof *t);
    if (t == NULL)
        return PyErr_NoMemory();
    t->messages = PyMem_Calloc(n ? (size_t)n : 1, sizeof *t->messages);
    if (t->messages == NULL) {
        PyMem_Free(t);
        return PyErr_NoMemory();
    }
    t->n = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        CanonMessage *msg = &t->messages[i];
        PyObject *fields, *walker, *fallback;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(arg, i), "O!OO;a table is (fields, walker, fallback)",
                              &PyList_Type, &fields, &walker, &fallback))
            goto fail;
        msg->walker = Py_NewRef(walker);
        msg->fallback = Py_NewRef(fallback);
        if ((msg->names = PyDict_New()) == NULL)
            goto fail;
        const Py_ssize_t nf = PyList_GET_SIZE(fields);
        msg->fields = PyMem_Calloc(nf ? (size_t)nf : 1, sizeof *msg->fields);
        if (msg->fields == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t k = 0; k < nf; k++) {
            CanonField *f = &msg->fields[k];
            PyObject *name, *kind, *fn;
            int repeated;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(fields, k), "UOpnO;a field is (name, kind, repeated, message, fn)",
                                  &name, &kind, &repeated, &f->message, &fn))
                goto fail;
            f->fn = Py_NewRef(fn);
            msg->nfields = k + 1;
            f->repeated = repeated;
            if ((f->kind = canon_kind(kind)) < 0)
                goto fail;
            msg->nchange += f->kind != CANON_KEEP;
            if (f->kind == CANON_MESSAGE ? (f->message < 0 || f->message >= n)
                                         : f->kind != CANON_KEEP && !PyCallable_Check(fn)) {
                PyErr_Format(PyExc_ValueError, "the field %R has no message type or function", name);
                goto fail;
            }
            PyObject *index = PyLong_FromSsize_t(k);
            if (index == NULL || PyDict_SetItem(msg->names, name, index) < 0) {
                Py_XDECREF(index);
                goto fail;
            }
            Py_DECREF(index);
        }
        for (Py_ssize_t k = 0; k < nf; k++) {
            PyObject *name = PyTuple_GET_ITEM(PyList_GET_ITEM(fields, k), 0);
            int rank = 0;
            for (Py_ssize_t j = 0; j < nf; j++) {
                const int c = PyUnicode_Compare(PyTuple_GET_ITEM(PyList_GET_ITEM(fields, j), 0), name);
                if (c == -1 && PyErr_Occurred())
                    goto fail;
                rank += c < 0;
            }
            msg->fields[k].rank = rank;
        }
    }
    if (timestamp != Py_None)
        t->timestamp = Py_NewRef(timestamp);
    PyObject *capsule = PyCapsule_New(t, CANON_CAPSULE, canon_capsule_free);
    if (capsule == NULL)
        canon_free(t);
    return capsule;
fail:
    canon_free(t);
    return NULL;
}

static inline int
digits(const Py_UCS1 *p, int n)
{
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (p[k] < '0' || p[k] > '9')
            return -1;
        v = v * 10 + (p[k] - '0');
    }
    return v;
}

/* The datetime in UTC of a timestamp of whole microseconds (no fraction, 3
 * or 6 digits), as datetime.fromisoformat reads it; NULL without an error
 * for any other text (the year 0000 too), which the Python function takes. */
static PyObject *
timestamp_datetime(PyObject *text)
{
    if (!PyUnicode_IS_COMPACT_ASCII(text))
        return NULL;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *p = PyUnicode_1BYTE_DATA(text);
    if ((n != 20 && n != 24 && n != 27) || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':'
        || p[16] != ':' || p[n - 1] != 'Z' || (n > 20 && p[19] != '.'))
        return NULL;
    const int year = digits(p, 4), month = digits(p + 5, 2), day = digits(p + 8, 2);
    const int hour = digits(p + 11, 2), minute = digits(p + 14, 2), second = digits(p + 17, 2);
    int us = 0;
    if (n == 24)
        us = digits(p + 20, 3) * 1000;
    else if (n == 27)
        us = digits(p + 20, 6);
    if (year < 1 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || us < 0)
        return NULL;
    PyObject *dt = PyDateTimeAPI->DateTime_FromDateAndTime(year, month, day, hour, minute, second, us,
                                                           PyDateTimeAPI->TimeZone_UTC,
                                                           PyDateTimeAPI->DateTimeType);
    if (dt == NULL && PyErr_ExceptionMatches(PyExc_ValueError))
        PyErr_Clear(); /* out of range: the Python function says how */
    return dt;
}

static PyObject *canon_message(CanonTables *t, Py_ssize_t index, PyObject *d);

/* The canonical form of one value of a field (a new reference). */
static PyObject *
canon_value(CanonTables *t, const CanonField *f, PyObject *v)
{
    switch (f->kind) {
    case CANON_MESSAGE:
        return canon_message(t, f->message, v);
    case CANON_TS_JS:
        if (PyUnicode_CheckExact(v)) {
            /* As memorywire._timestamp.canonical: the text where it is canonical. */
            const Py_ssize_t n = PyUnicode_GET_LENGTH(v);
            if (n == 20)
                return Py_NewRef(v);
            if ((n == 24 || n == 27 || n == 30) && PyUnicode_IS_COMPACT_ASCII(v)) {
                const Py_UCS1 *p = PyUnicode_1BYTE_DATA(v) + n - 4;
                if (p[0] != '0' || p[1] != '0' || p[2] != '0')
                    return Py_NewRef(v);
            }
        }
        break;
    case CANON_TS_MP:
        if (PyUnicode_CheckExact(v)) {
            PyObject *dt = timestamp_datetime(v);
            if (dt != NULL || PyErr_Occurred())
                return dt;
        }
        break;
    case CANON_DOUBLE:
        if (PyFloat_CheckExact(v))
            return Py_NewRef(v);
        return PyObject_CallOneArg((PyObject *)&PyFloat_Type, v);
    }
    return PyObject_CallOneArg(f->fn, v);
}

/* 1 where the value is true, 0 where not, -1 on error. */
static inline int
is_true(PyObject *value)
{
    /* The common types without a call: strings, lists and messages. */
    PyTypeObject *t = Py_TYPE(value);
    if (t == &PyUnicode_Type)
        return PyUnicode_GET_LENGTH(value) != 0;
    if (t == &PyDict_Type)
        return PyDict_GET_SIZE(value) != 0;
    if (t == &PyList_Type)
        return PyList_GET_SIZE(value) != 0;
    return PyObject_IsTrue(value);
}

/* 1 where every value of the dict is true, 0 where one is not, -1 on error. */
static int
all_values(PyObject *d)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(d, &pos, &key, &value)) {
        const int r = is_true(value);
        if (r <= 0)
            return r;
    }
    return 1;
}

/* The field of a member name, or NULL (with an error set on
 * error). */
static const CanonField *
canon_field(CanonMessage *msg, PyObject *key)
{
    /* Two slots a name may take, from its address (Fibonacci hashing). */
    const uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
    const size_t a = (size_t)(h >> (64 - CANON_CACHE_BITS));
    const size_t b = (size_t)(h >> (64 - 2 * CANON_CACHE_BITS)) & (CANON_CACHE - 1);
    size_t slot = a;
    if (msg->cache_key[a] != key)
        slot = b;
    if (msg->cache_key[slot] == key) {
        const Py_ssize_t k = msg->cache_index[slot];
        return k < 0 ? NULL : &msg->fields[k];
    }
    PyObject *found = PyDict_GetItemWithError(msg->names, key);
    if (found == NULL && PyErr_Occurred())
        return NULL;
    const Py_ssize_t k = found == NULL ? -1 : PyLong_AsSsize_t(found);
    if (PyUnicode_CheckExact(key)) {
        slot = msg->cache_key[a] == NULL || msg->cache_key[b] != NULL ? a : b;
        PyObject *old = msg->cache_key[slot];
        msg->cache_key[slot] = Py_NewRef(key);
        msg->cache_index[slot] = k;
        Py_XDECREF(old);
    }
    return k < 0 ? NULL : &msg->fields[k];
}

/* The canonical form of a list of a repeated field: the list itself where
 * no element changes, else a copy (a new reference). */
static PyObject *
canon_list(CanonTables *t, const CanonField *f, PyObject *v)
{
    PyObject *x = NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(v); k++) {
        PyObject *item = Py_NewRef(PyList_GET_ITEM(v, k));
        PyObject *y = canon_value(t, f, item);
        if (y != NULL && y != item && x == NULL)
            x = PyList_GetSlice(v, 0, PY_SSIZE_T_MAX);
        Py_DECREF(item);
        if (y == NULL)
            goto fail;
        if (x == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(y);
                goto fail;
            }
            Py_DECREF(y);
            continue;
        }
        if (k >= PyList_GET_SIZE(x)) {
            /* Only code that changes the list while it is read comes here. */
            Py_DECREF(y);
            PyErr_SetString(PyExc_RuntimeError, "a list changed while written");
            goto fail;
        }
        PyObject *old = PyList_GET_ITEM(x, k);
        PyList_SET_ITEM(x, k, y);
        Py_DECREF(old);
    }
    return x != NULL ? x : Py_NewRef(v);
fail:
    Py_XDECREF(x);
    return NULL;
}

/* A member whose spelling may change, held. */
typedef struct {
    PyObject *key, *value;
    const CanonField *field;
} CanonHit;

#define CANON_HITS 32

static PyObject *
canon_message(CanonTables *t, Py_ssize_t index, PyObject *d)
{
    CanonMessage *msg = &t->messages[index];
    if (!PyDict_CheckExact(d))
        return PyObject_CallOneArg(msg->fallback, d);
    /* One pass: a default member sends the document to the walker; the
     * members of fields that change are kept (each name once). */
    CanonHit stack[CANON_HITS], *hits = stack;
    if (msg->nchange > CANON_HITS && (hits = PyMem_Malloc(msg->nchange * sizeof *hits)) == NULL)
        return PyErr_NoMemory();
    Py_ssize_t nhits = 0, pos = 0;
    PyObject *key, *v, *o = NULL; /* o: the copy, from the first member that changes */
    int r = 1; /* 0 on a default member, -1 on error */
    while (PyDict_Next(d, &pos, &key, &v)) {
        if ((r = is_true(v)) <= 0)
            break;
        if (msg->nchange == 0)
            continue;
        const CanonField *f = canon_field(msg, key);
        if (f == NULL || f->kind == CANON_KEEP) {
            if (f == NULL && PyErr_Occurred()) {
                r = -1;
                break;
            }
            continue;
        }
        if (nhits == msg->nchange) {
            /* Only a dict that code changed while it was read. */
            PyErr_SetString(PyExc_RuntimeError, "a dict changed while written");
            r = -1;
            break;
        }
        hits[nhits++] = (CanonHit){Py_NewRef(key), Py_NewRef(v), f};
    }
    if (r == 1 && nhits && Py_EnterRecursiveCall(" in canonical"))
        r = -1;
    else if (r == 1 && nhits) {
        for (Py_ssize_t k = 0; k < nhits; k++) {
            const CanonField *f = hits[k].field;
            PyObject *value = hits[k].value;
            if (f->repeated && !PyList_CheckExact(value)) {
                /* The generated function takes any iterable. */
                r = 2;
                break;
            }
            PyObject *x = f->repeated ? canon_list(t, f, value) : canon_value(t, f, value);
            if (x == NULL)
                r = -1;
            else if (x != value) {
                if (o == NULL && (o = PyDict_Copy(d)) == NULL)
                    r = -1;
                else if (PyDict_SetItem(o, hits[k].key, x) < 0) /* a new value of a present key */
                    r = -1;
            }
            Py_XDECREF(x);
            if (r < 0)
                break;
        }
        Py_LeaveRecursiveCall();
    }
    for (Py_ssize_t k = 0; k < nhits; k++) {
        Py_DECREF(hits[k].key);
        Py_DECREF(hits[k].value);
    }
    if (hits != stack)
        PyMem_Free(hits);
    if (r == 1)
        return o != NULL ? o : Py_NewRef(d);
    Py_XDECREF(o);
    if (r == 0)
        return PyObject_CallOneArg(msg->walker, d);
    if (r == 2)
        return PyObject_CallOneArg(msg->fallback, d);
    return NULL;
}

/* canonical(tables, index, doc): the canonical form of a valid document of
 * the message type of index in tables. */
static PyObject *
canonical(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "canonical takes 3 arguments");
        return NULL;
    }
    CanonTables *t = PyCapsule_GetPointer(args[0], CANON_CAPSULE);
    if (t == NULL)
        return NULL;
    const Py_ssize_t index = PyLong_AsSsize_t(args[1]);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= t->n) {
        PyErr_SetString(PyExc_IndexError, "no such message type");
        return NULL;
    }
    return canon_message(t, index, args[2]);
}

/* canonical_msgpack(tables, index, fallback, doc): the canonical MessagePack
 * bytes of a valid document of the message type of index in the tables of
 * MessagePack, written here as msgspec writes the canonical form of the
 * generated functions (keys in code point order, the smallest forms of
 * integers and lengths, floats in 64 bits, timestamps as the extension -1);
 * fallback(doc) where anything is not certain: a type of value not written
 * here, a string that UTF-8 cannot hold, a timestamp not of the validator's
 * form, deep nesting, an error of a function (it raises it again). */

/* Nesting written here at most; deeper documents take the fallback. */
#define MP_DEPTH 128

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} MpOut;

/* 0 done, -1 error (set), 1 not certain (no error set). */
#define MP_UNSURE 1

static int
mp_reserve(MpOut *out, Py_ssize_t n)
{
    if (out->len + n <= out->cap)
        return 0;
    Py_ssize_t cap = out->cap;
    while (cap < out->len + n) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *buf = PyMem_Realloc(out->buf, (size_t)cap);
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    out->buf = buf;
    out->cap = cap;
    return 0;
}

static inline void
mp_put_be(MpOut *out, uint64_t v, int size)
{
    for (int k = size - 1; k >= 0; k--)
        out->buf[out->len++] = (char)(v >> (8 * k));
}

/* A header of a length: fix (base | n) up to fix_max, else a byte b8 (or
 * none, 0) with 1 byte, b16 with 2, b32 with 4. */
static int
mp_length(MpOut *out, Py_ssize_t n, unsigned char base, Py_ssize_t fix_max, unsigned char b8,
          unsigned char b16, unsigned char b32)
{
    if ((uint64_t)n > 0xffffffffu)
        return MP_UNSURE;
    if (mp_reserve(out, 5) < 0)
        return -1;
    if (n <= fix_max)
        out->buf[out->len++] = (char)(base | n);
    else if (b8 && n <= 0xff) {
        out->buf[out->len++] = (char)b8;
        mp_put_be(out, (uint64_t)n, 1);
    }
    else if (n <= 0xffff) {
        out->buf[out->len++] = (char)b16;
        mp_put_be(out, (uint64_t)n, 2);
    }
    else {
        out->buf[out->len++] = (char)b32;
        mp_put_be(out, (uint64_t)n, 4);
    }
    return 0;
}

static int
mp_raw(MpOut *out, const char *data, Py_ssize_t n)
{
    if (mp_reserve(out, n) < 0)
        return -1;
    memcpy(out->buf + out->len, data, (size_t)n);
    out->len += n;
    return 0;
}

static int
mp_str(MpOut *out, PyObject *v)
{
    Py_ssize_t n;
    const char *data;
    if (PyUnicode_IS_COMPACT_ASCII(v)) {
        n = PyUnicode_GET_LENGTH(v);
        data = (const char *)PyUnicode_1BYTE_DATA(v);
    }
    else if ((data = PyUnicode_AsUTF8AndSize(v, &n)) == NULL)
        return -1; /* a lone surrogate: the fallback raises as before */
    int r = mp_length(out, n, 0xa0, 31, 0xd9, 0xda, 0xdb);
    return r ? r : mp_raw(out, data, n);
}

static int
mp_bin(MpOut *out, PyObject *v)
{
    const Py_ssize_t n = PyBytes_GET_SIZE(v);
    int r = mp_length(out, n, 0, -1, 0xc4, 0xc5, 0xc6);
    return r ? r : mp_raw(out, PyBytes_AS_STRING(v), n);
}

static int
mp_double(MpOut *out, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    if (mp_reserve(out, 9) < 0)
        return -1;
    out->buf[out->len++] = (char)0xcb;
    mp_put_be(out, bits, 8);
    return 0;
}

static int
mp_int(MpOut *out, PyObject *v)
{
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (mp_reserve(out, 9) < 0)
        return -1;
    if (overflow) {
        if (overflow < 0)
            return MP_UNSURE;
        const unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            PyErr_Clear();
            return MP_UNSURE;
        }
        out->buf[out->len++] = (char)0xcf;
        mp_put_be(out, u, 8);
    }
    else if (x >= 0) {
        if (x <= 0x7f)
            out->buf[out->len++] = (char)x;
        else if (x <= 0xff) {
            out->buf[out->len++] = (char)0xcc;
            mp_put_be(out, (uint64_t)x, 1);
        }
        else if (x <= 0xffff) {
            out->buf[out->len++] = (char)0xcd;
            mp_put_be(out, (uint64_t)x, 2);
        }
        else if (x <= 0xffffffffLL) {
            out->buf[out->len++] = (char)0xce;
            mp_put_be(out, (uint64_t)x, 4);
        }
        else {
            out->buf[out->len++] = (char)0xcf;
            mp_put_be(out, (uint64_t)x, 8);
        }
    }
    else if (x >= -32)
        out->buf[out->len++] = (char)x;
    else if (x >= -128) {
        out->buf[out->len++] = (char)0xd0;
        mp_put_be(out, (uint64_t)x, 1);
    }
    else if (x >= -32768) {
        out->buf[out->len++] = (char)0xd1;
        mp_put_be(out, (uint64_t)x, 2);
    }
    else if (x >= -2147483648LL) {
        out->buf[out->len++] = (char)0xd2;
        mp_put_be(out, (uint64_t)x, 4);
    }
    else {
        out->buf[out->len++] = (char)0xd3;
        mp_put_be(out, (uint64_t)x, 8);
    }
    return 0;
}

/* The timestamp extension of seconds and nanoseconds since the epoch, in
 * the smallest of its three forms. */
static int
mp_timestamp(MpOut *out, int64_t seconds, uint32_t nanos)
{
    if (mp_reserve(out, 15) < 0)
        return -1;
    if (seconds >= 0 && (seconds >> 34) == 0) {
        const uint64_t data = ((uint64_t)nanos << 34) | (uint64_t)seconds;
        if ((data >> 32) == 0) {
            out->buf[out->len++] = (char)0xd6;
            out->buf[out->len++] = (char)0xff;
            mp_put_be(out, data, 4);
        }
        else {
            out->buf[out->len++] = (char)0xd7;
            out->buf[out->len++] = (char)0xff;
            mp_put_be(out, data, 8);
        }
    }
    else {
        out->buf[out->len++] = (char)0xc7;
        out->buf[out->len++] = 12;
        out->buf[out->len++] = (char)0xff;
        mp_put_be(out, nanos, 4);
        mp_put_be(out, (uint64_t)seconds, 8);
    }
    return 0;
}

/* A float32 vector as bin of its little-endian binary32 values, rounded to
 * nearest as struct packs them (memorywire._compiled.float32_bytes);
 * MP_UNSURE for a value that is not a float or an int, or that binary32
 * cannot hold (struct refuses it). */
static int
mp_vector(MpOut *out, PyObject *v)
{
    const Py_ssize_t n = PyList_GET_SIZE(v);
    if (n > PY_SSIZE_T_MAX / 4)
        return MP_UNSURE;
    const Py_ssize_t start = out->len;
    int r = mp_length(out, 4 * n, 0, -1, 0xc4, 0xc5, 0xc6);
    if (r || (r = mp_reserve(out, 4 * n)) != 0)
        return r;
    unsigned char *p = (unsigned char *)out->buf + out->len;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyList_GET_ITEM(v, k);
        double d;
        if (PyFloat_CheckExact(x))
            d = PyFloat_AS_DOUBLE(x);
        else if (PyLong_CheckExact(x)) {
            d = PyLong_AsDouble(x);
            if (d == -1.0 && PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                    return -1;
                PyErr_Clear();
                out->len = start;
                return MP_UNSURE;
            }
        }
        else {
            out->len = start;
            return MP_UNSURE;
        }
        const float y = (float)d;
        if (isinf(y) && !isinf(d)) {
            out->len = start;
            return MP_UNSURE;
        }
        uint32_t bits;
        memcpy(&bits, &y, sizeof bits);
        for (int b = 0; b < 4; b++)
            p[4 * k + b] = (unsigned char)(bits >> (8 * b));
    }
    out->len += 4 * n;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date, as
 * memorywire._timestamp._days_from_civil. */
static int64_t
days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* A timestamp of the validator's form (YYYY-MM-DDTHH:MM:SS, a fraction of
 * 1 to 9 digits, Z) as memorywire._timestamp.parse reads it; MP_UNSURE for
 * any other text. */
static int
mp_timestamp_text(MpOut *out, PyObject *text)
{
    if (!PyUnicode_CheckExact(text) || !PyUnicode_IS_COMPACT_ASCII(text))
        return MP_UNSURE;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *p = PyUnicode_1BYTE_DATA(text);
    if (n < 20 || n > 30 || n == 21 || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':'
        || p[16] != ':' || p[n - 1] != 'Z' || (n > 20 && p[19] != '.'))
        return MP_UNSURE;
    const int year = digits(p, 4), month = digits(p + 5, 2), day = digits(p + 8, 2);
    const int hour = digits(p + 11, 2), minute = digits(p + 14, 2), second = digits(p + 17, 2);
    int64_t nanos = 0;
    if (n > 20) {
        const int k = (int)n - 21; /* digits of the fraction */
        const int fraction = digits(p + 20, k);
        if (fraction < 0)
            return MP_UNSURE;
        nanos = fraction;
        for (int j = k; j < 9; j++)
            nanos *= 10;
    }
    if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0)
        return MP_UNSURE;
    const int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    return mp_timestamp(out, seconds, (uint32_t)nanos);
}

static int mp_value(CanonTables *t, MpOut *out, PyObject *v, int depth);
static int mp_message(CanonTables *t, MpOut *out, Py_ssize_t index, PyObject *d, int depth);

/* The bytes fn gives for a value, as bin. */
static int
mp_call(MpOut *out, PyObject *fn, PyObject *v)
{
    PyObject *y = PyObject_CallOneArg(fn, v);
    if (y == NULL)
        return -1;
    const int r = PyBytes_CheckExact(y) ? mp_bin(out, y) : MP_UNSURE;
    Py_DECREF(y);
    return r;
}

typedef struct {
    PyObject *key, *value;
    const CanonField *field; /* NULL: a member written as it is */
} MpItem;

/* Code point order of two strings. */
static int
mp_key_cmp(const void *pa, const void *pb)
{
    PyObject *a = ((const MpItem *)pa)->key, *b = ((const MpItem *)pb)->key;
    if (PyUnicode_IS_COMPACT_ASCII(a) && PyUnicode_IS_COMPACT_ASCII(b)) {
        const Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
        const int c = memcmp(PyUnicode_1BYTE_DATA(a), PyUnicode_1BYTE_DATA(b), (size_t)(na < nb ? na : nb));
        return c ? c : (na > nb) - (na < nb);
    }
    return PyUnicode_Compare(a, b); /* two str: never an error */
}

/* The members of a map, in code point order of their names; by the ranks
 * of their fields where every member has one. */
static void
mp_sort(MpItem *items, Py_ssize_t n, int ranked)
{
    if (!ranked) {
        qsort(items, (size_t)n, sizeof *items, mp_key_cmp);
        return;
    }
    for (Py_ssize_t k = 1; k < n; k++) {
        const MpItem item = items[k];
        Py_ssize_t j = k;
        while (j > 0 && items[j - 1].field->rank > item.field->rank) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = item;
    }
}

#define MP_ITEMS 32

/* A map of the members of the dict d (a message of the type msg, or NULL),
 * each written by its field where it has one that changes it. */
static int
mp_map(CanonTables *t, MpOut *out, PyObject *d, CanonMessage *msg, int depth)
{
    const Py_ssize_t n = PyDict_GET_SIZE(d);
    MpItem stack[MP_ITEMS], *items = stack;
    if (n > MP_ITEMS && (items = PyMem_Malloc((size_t)n * sizeof *items)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    int r = 0, ranked = msg != NULL;
    while (k < n && PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            r = MP_UNSURE;
            break;
        }
        const CanonField *f = NULL;
        if (msg != NULL) {
            if (msg->nfields)
                f = canon_field(msg, key);
            if (f == NULL) {
                if (PyErr_Occurred()) {
                    r = -1;
                    break;
                }
                ranked = 0; /* a member the type does not know */
            }
        }
        items[k++] = (MpItem){Py_NewRef(key), Py_NewRef(value), f};
    }
    if (r == 0 && k != n) {
        PyErr_SetString(PyExc_RuntimeError, "a dict changed while written");
        r = -1;
    }
    if (r == 0) {
        mp_sort(items, n, ranked);
        r = mp_length(out, n, 0x80, 15, 0, 0xde, 0xdf);
    }
    for (Py_ssize_t j = 0; r == 0 && j < n; j++) {
        const CanonField *f = items[j].field;
        if ((r = mp_str(out, items[j].key)) != 0)
            break;
        if (f == NULL || f->kind == CANON_KEEP) {
            r = mp_value(t, out, items[j].value, depth + 1);
            continue;
        }
        PyObject *v = items[j].value;
        Py_ssize_t count = 1;
        PyObject *const *each = &v;
        if (f->repeated) {
            if (!PyList_CheckExact(v)) {
                r = MP_UNSURE;
                break;
            }
            count = PyList_GET_SIZE(v);
            each = PySequence_Fast_ITEMS(v);
            if ((r = mp_length(out, count, 0x90, 15, 0, 0xdc, 0xdd)) != 0)
                break;
        }
        for (Py_ssize_t e = 0; r == 0 && e < count; e++) {
            /* The values of a valid list are not code that changes it. */
            if (f->repeated && (count != PyList_GET_SIZE(v) || each != PySequence_Fast_ITEMS(v))) {
                r = MP_UNSURE;
                break;
            }
            PyObject *x = Py_NewRef(each[e]);
            switch (f->kind) {
            case CANON_MESSAGE:
                r = PyDict_CheckExact(x) ? mp_message(t, out, f->message, x, depth + 1) : MP_UNSURE;
                break;
            case CANON_TS_MP:
                r = mp_timestamp_text(out, x);
                break;
            case CANON_DOUBLE:
                if (PyFloat_CheckExact(x))
                    r = mp_double(out, PyFloat_AS_DOUBLE(x));
                else if (PyLong_CheckExact(x)) {
                    const double dv = PyLong_AsDouble(x);
                    r = dv == -1.0 && PyErr_Occurred() ? -1 : mp_double(out, dv);
                }
                else
                    r = MP_UNSURE;
                break;
            case CANON_VECTOR_MP:
                /* A Float32Values keeps the bytes it was read from: its function gives them. */
                if (!PyList_CheckExact(x) || (r = mp_vector(out, x)) == MP_UNSURE)
                    r = mp_call(out, f->fn, x);
                break;
            case CANON_CALL:
                r = mp_call(out, f->fn, x);
                break;
            default:
                r = MP_UNSURE;
            }
            Py_DECREF(x);
        }
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_DECREF(items[j].key);
        Py_DECREF(items[j].value);
    }
    if (items != stack)
        PyMem_Free(items);
    return r;
}

/* A message of the type of index: through its walker where a member has
 * its default value. */
static int
mp_message(CanonTables *t, MpOut *out, Py_ssize_t index, PyObject *d, int depth)
{
    if (depth > MP_DEPTH)
        return MP_UNSURE;
    CanonMessage *msg = &t->messages[index];
    const int all = all_values(d);
    if (all < 0)
        return -1;
    if (all)
        return mp_map(t, out, d, msg, depth);
    PyObject *form = PyObject_CallOneArg(msg->walker, d);
    if (form == NULL)
        return -1;
    const int r = mp_value(t, out, form, depth);
    Py_DECREF(form);
    return r;
}

/* A value written as it is: the JSON types, bytes and the timestamps of
 * the walkers. */
static int
mp_value(CanonTables *t, MpOut *out, PyObject *v, int depth)
{
    PyTypeObject *type = Py_TYPE(v);
    if (type == &PyUnicode_Type)
        return mp_str(out, v);
    if (type == &PyLong_Type)
        return mp_int(out, v);
    if (type == &PyFloat_Type)
        return mp_double(out, PyFloat_AS_DOUBLE(v));
    if (v == Py_True || v == Py_False || v == Py_None) {
        if (mp_reserve(out, 1) < 0)
            return -1;
        out->buf[out->len++] = (char)(v == Py_None ? 0xc0 : v == Py_True ? 0xc3 : 0xc2);
        return 0;
    }
    if (type == &PyBytes_Type)
        return mp_bin(out, v);
    if (depth > MP_DEPTH)
        return MP_UNSURE;
    if (type == &PyDict_Type)
        return mp_map(t, out, v, NULL, depth);
    if (type == &PyList_Type) {
        const Py_ssize_t n = PyList_GET_SIZE(v);
        int r = mp_length(out, n, 0x90, 15, 0, 0xdc, 0xdd);
        for (Py_ssize_t k = 0; r == 0 && k < n; k++) {
            if (n != PyList_GET_SIZE(v))
                return MP_UNSURE; /* changed while written */
            PyObject *item = Py_NewRef(PyList_GET_ITEM(v, k));
            r = mp_value(t, out, item, depth + 1);
            Py_DECREF(item);
        }
        return r;
    }
    if (t->timestamp != NULL && (PyObject *)type == t->timestamp) {
        PyObject *seconds = PyObject_GetAttrString(v, "seconds");
        PyObject *nanos = seconds ? PyObject_GetAttrString(v, "nanoseconds") : NULL;
        int r = -1;
        if (nanos != NULL) {
            const long long sv = PyLong_AsLongLong(seconds);
            const long long nv = PyLong_AsLongLong(nanos);
            if (PyErr_Occurred())
                r = -1;
            else if (nv < 0 || nv >= 1000000000)
                r = MP_UNSURE;
            else
                r = mp_timestamp(out, sv, (uint32_t)nv);
        }
        Py_XDECREF(seconds);
        Py_XDECREF(nanos);
        return r;
    }
    return MP_UNSURE;
}

static PyObject *
canonical_msgpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "canonical_msgpack takes 4 arguments");
        return NULL;
    }
    CanonTables *t = PyCapsule_GetPointer(args[0], CANON_CAPSULE);
    if (t == NULL)
        return NULL;
    const Py_ssize_t index = PyLong_AsSsize_t(args[1]);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= t->n) {
        PyErr_SetString(PyExc_IndexError, "no such message type");
        return NULL;
    }
    PyObject *fallback = args[2], *doc = args[3];
    if (!PyDict_CheckExact(doc))
        return PyObject_CallOneArg(fallback, doc);
    MpOut out = {PyMem_Malloc(1024), 0, 1024};
    if (out.buf == NULL)
        return PyErr_NoMemory();
    int r = mp_message(t, &out, index, doc, 0);
    PyObject *data = NULL;
    if (r == 0)
        data = PyBytes_FromStringAndSize(out.buf, out.len);
    PyMem_Free(out.buf);
    if (r == 0)
        return data;
    if (r < 0 && !PyErr_ExceptionMatches(PyExc_Exception))
        return NULL; /* not a fault of the document: KeyboardInterrupt and such */
    PyErr_Clear();
    return PyObject_CallOneArg(fallback, doc);
}

static PyMethodDef methods[] = {
    {"json_scan", json_scan, METH_O, "The object members of a JSON text and whether it is clean, or None."},
    {"msgpack_scan", msgpack_scan, METH_O, "The map entries and timestamps of a MessagePack object, or None."},
    {"tree_counts", (PyCFunction)(void (*)(void))tree_counts, METH_FASTCALL,
     "The members of the dicts of a tree and its datetimes; with texts, datetimes become text."},
    {"value_ok", (PyCFunction)(void (*)(void))value_ok, METH_FASTCALL, "Whether a Value is within the rules."},
    {"canonical_tables", canonical_tables, METH_VARARGS, "The tables of the canonical pass, checked."},
    {"canonical", (PyCFunction)(void (*)(void))canonical, METH_FASTCALL,
     "The canonical form of a valid document of a message type of the tables."},
    {"canonical_msgpack", (PyCFunction)(void (*)(void))canonical_msgpack, METH_FASTCALL,
     "The canonical MessagePack bytes of a valid document of a message type of the tables."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "memorywire._speedups", "Scans and counts of the typed fast path.", -1, methods,
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
