/* Scans and counts of the typed fast path (memorywire._fast), in C.
 *
 * The fast path decodes a document with msgspec into dicts typed by the
 * field tables; msgspec keeps the last of repeated members and passes over
 * unknown ones. These functions prove that it lost none: the bytes hold as
 * many object members (map entries) as the decoded tree, and nothing the
 * types cannot judge. Each reads only within its input, whatever the input;
 * when unsure it says so, and the walkers judge the document.
 *
 * The canonical Protobuf writer of memorywire._encode is here too, in its
 * own section at the end (pb_tables, pb_write).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
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

/* -- Canonical Protobuf writer ---------------------------------------------
 *
 * pb_tables(tables, vector_type) takes the field tables of the message types
 * (derived by memorywire._encode from memorywire._model) and pb_write(index,
 * d) writes a validated document of message type number index as canonical
 * Protobuf, the bytes of the walker pb_M of memorywire._compiled: fields in
 * field-number order, defaults of fields without presence left out, packed
 * repeated integers and float32 vectors, map entries sorted by key. It reads
 * the document and writes bytes, and never changes either. On anything it
 * does not expect (a type other than the field's, an integer out of range,
 * base64 or a timestamp not spelled as the validator allows, a lone
 * surrogate, nesting beyond its bound) it returns None, and the writers in
 * Python write the document as before: it only ever saves time.
 */

/* The kinds of a field table entry, as memorywire._encode names them. */
enum {
    PB_UNSUPPORTED, PB_STRING, PB_BOOL, PB_UINT, PB_DOUBLE, PB_BYTES, PB_ENUM, PB_MESSAGE,
    PB_TIMESTAMP, PB_VALUE, PB_MAP, PB_STRINGS, PB_UINTS, PB_ENUMS, PB_VECTOR, PB_MESSAGES,
    PB_BYTESES, PB_TIMESTAMPS, PB_KINDS
};

/* The deepest nesting of messages and Values written here (well within
 * the stack of any thread); deeper documents are left to the writers in
 * Python. */
#define PB_MAX_DEPTH 100

typedef struct {
    PyObject *name;     /* the member name (a str) */
    PyObject *enum_map; /* for enums: JSON name -> number (a dict) */
    Py_ssize_t message; /* for messages: the index of their table */
    int kind;
    int presence;       /* whether a default value is written too */
    int tag_len;
    unsigned char tag[5];
} pb_field;

typedef struct {
    Py_ssize_t count;
    pb_field *fields;
    PyObject *positions; /* member name -> position in fields (a dict) */
} pb_table;

/* The most members of a message that pb_message puts in order on its
 * stack (a record's messages hold a dozen at most); a message with more is
 * written field by field. */
#define PB_MEMBERS 32

/* The names of the kinds, as pb_tables takes them. */
static const char *const pb_kind_names[PB_KINDS] = {
    "unsupported", "string", "bool", "uint", "double", "bytes", "enum", "message",
    "timestamp", "value", "map", "strings", "uints", "enums", "vector", "messages",
    "byteses", "timestamps",
};

static pb_table *pb_tables_ = NULL;
static Py_ssize_t pb_table_count = 0;
static PyObject *pb_vector_type = NULL; /* memorywire._codec.Float32Values */
static PyObject *pb_raw_name = NULL;    /* "raw" */

typedef struct {
    unsigned char *data;
    Py_ssize_t len, cap;
    unsigned char *stack; /* the first buffer, on the stack of pb_write */
} pb_buf;

/* Room for n more bytes; -1 with MemoryError set. */
static int
pb_reserve(pb_buf *b, Py_ssize_t n)
{
    if (b->cap - b->len >= n)
        return 0;
    if (n > PY_SSIZE_T_MAX / 4 - b->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    unsigned char *data;
    if (b->data == b->stack) {
        data = PyMem_Malloc((size_t)cap);
        if (data != NULL)
            memcpy(data, b->data, (size_t)b->len);
    }
    else
        data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline int
pb_put(pb_buf *b, const void *p, Py_ssize_t n)
{
    if (pb_reserve(b, n) < 0)
        return -1;
    memcpy(b->data + b->len, p, (size_t)n);
    b->len += n;
    return 0;
}

static inline int
pb_varint_len(uint64_t v)
{
    int n = 1;
    while (v > 127) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline int
pb_varint(pb_buf *b, uint64_t v)
{
    if (pb_reserve(b, 10) < 0)
        return -1;
    unsigned char *p = b->data + b->len;
    while (v > 127) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    b->len = p - b->data;
    return 0;
}

static inline int
pb_tag(pb_buf *b, const pb_field *f)
{
    return pb_put(b, f->tag, f->tag_len);
}

/* A length-delimited field is written with one byte kept for its length,
 * which pb_close fills in, moving the content where the length takes more. */
static inline Py_ssize_t
pb_open(pb_buf *b)
{
    if (pb_reserve(b, 1) < 0)
        return -1;
    b->data[b->len] = 0;
    return b->len++;
}

static int
pb_close(pb_buf *b, Py_ssize_t at)
{
    const Py_ssize_t n = b->len - at - 1;
    if (n < 128) {
        b->data[at] = (unsigned char)n;
        return 0;
    }
    const int k = pb_varint_len((uint64_t)n);
    if (pb_reserve(b, k - 1) < 0)
        return -1;
    memmove(b->data + at + k, b->data + at + 1, (size_t)n);
    unsigned char *p = b->data + at;
    uint64_t v = (uint64_t)n;
    while (v > 127) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p = (unsigned char)v;
    b->len += k - 1;
    return 0;
}

/* The UTF-8 bytes of an exact str: its own for ASCII, else in *tmp (a new
 * bytes object); NULL where it has a lone surrogate or is not a str. */
static const char *
pb_utf8(PyObject *s, Py_ssize_t *n, PyObject **tmp)
{
    *tmp = NULL;
    if (!PyUnicode_CheckExact(s))
        return NULL;
    if (PyUnicode_IS_COMPACT_ASCII(s)) {
        *n = PyUnicode_GET_LENGTH(s);
        return (const char *)PyUnicode_DATA(s);
    }
    *tmp = PyUnicode_AsUTF8String(s);
    if (*tmp == NULL)
        return NULL;
    *n = PyBytes_GET_SIZE(*tmp);
    return PyBytes_AS_STRING(*tmp);
}

/* tag, length and the UTF-8 bytes of a str. */
static int
pb_string(pb_buf *b, const unsigned char *tag, int tag_len, PyObject *s)
{
    PyObject *tmp;
    Py_ssize_t n;
    const char *p = pb_utf8(s, &n, &tmp);
    if (p == NULL)
        return -1;
    int r = pb_put(b, tag, tag_len);
    if (r == 0)
        r = pb_varint(b, (uint64_t)n);
    if (r == 0)
        r = pb_put(b, p, n);
    Py_XDECREF(tmp);
    return r;
}

static const signed char pb_b64[256] = {
    ['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7, ['H'] = 8,
    ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16,
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
    ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
    ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};

/* tag, length and the bytes of padded standard base64 text, as
 * base64.b64decode reads it; -1 for any other text. */
static int
pb_base64(pb_buf *b, const pb_field *f, PyObject *s)
{
    if (!PyUnicode_CheckExact(s) || !PyUnicode_IS_COMPACT_ASCII(s))
        return -1;
    const unsigned char *p = (const unsigned char *)PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n % 4)
        return -1;
    Py_ssize_t pad = 0;
    if (n && p[n - 1] == '=')
        pad = (n >= 2 && p[n - 2] == '=') ? 2 : 1;
    const Py_ssize_t out = n / 4 * 3 - pad;
    if (pb_tag(b, f) < 0 || pb_varint(b, (uint64_t)out) < 0 || pb_reserve(b, n / 4 * 3) < 0)
        return -1;
    unsigned char *q = b->data + b->len;
    for (Py_ssize_t i = 0; i < n; i += 4) {
        const int last = i + 4 == n;
        int c[4];
        for (int j = 0; j < 4; j++) {
            if (last && j >= 4 - pad) {
                c[j] = 0;
                continue;
            }
            c[j] = pb_b64[p[i + j]] - 1;
            if (c[j] < 0)
                return -1;
        }
        const uint32_t w = (uint32_t)c[0] << 18 | (uint32_t)c[1] << 12 | (uint32_t)c[2] << 6 | (uint32_t)c[3];
        *q++ = (unsigned char)(w >> 16);
        *q++ = (unsigned char)(w >> 8);
        *q++ = (unsigned char)w;
    }
    b->len += out;
    return 0;
}

static inline int
pb_digits(const unsigned char *p, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date, as
 * memorywire._timestamp._days_from_civil (floor division throughout). */
static int64_t
pb_days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* A google.protobuf.Timestamp of RFC 3339 text in UTC, as the validator
 * allows it (YYYY-MM-DDTHH:MM:SS, 1 to 9 digits of a fraction, Z). */
static int
pb_timestamp(pb_buf *b, const pb_field *f, PyObject *s)
{
    if (!PyUnicode_CheckExact(s) || !PyUnicode_IS_COMPACT_ASCII(s))
        return -1;
    const unsigned char *p = (const unsigned char *)PyUnicode_DATA(s);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n < 20 || n > 30 || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':' || p[16] != ':'
        || p[n - 1] != 'Z' || (n > 20 && (p[19] != '.' || n == 21)) || (n == 20 && p[19] != 'Z'))
        return -1;
    int64_t year, month, day, hour, minute, second, nanos = 0;
    if (pb_digits(p, 4, &year) < 0 || pb_digits(p + 5, 2, &month) < 0 || pb_digits(p + 8, 2, &day) < 0
        || pb_digits(p + 11, 2, &hour) < 0 || pb_digits(p + 14, 2, &minute) < 0
        || pb_digits(p + 17, 2, &second) < 0)
        return -1;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
        return -1;
    if (n > 20) {
        const int k = (int)(n - 21);
        if (pb_digits(p + 20, k, &nanos) < 0)
            return -1;
        for (int i = k; i < 9; i++)
            nanos *= 10;
    }
    const int64_t seconds = pb_days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    unsigned char inner[20];
    int len = 0;
    uint64_t v;
    if (seconds) {
        inner[len++] = 0x08;
        for (v = (uint64_t)seconds; v > 127; v >>= 7)
            inner[len++] = (unsigned char)(v | 0x80);
        inner[len++] = (unsigned char)v;
    }
    if (nanos) {
        inner[len++] = 0x10;
        for (v = (uint64_t)nanos; v > 127; v >>= 7)
            inner[len++] = (unsigned char)(v | 0x80);
        inner[len++] = (unsigned char)v;
    }
    if (pb_tag(b, f) < 0 || pb_reserve(b, len + 1) < 0)
        return -1;
    b->data[b->len++] = (unsigned char)len;
    return pb_put(b, inner, len);
}

static inline int
pb_double(pb_buf *b, double x)
{
    unsigned char raw[8];
    memcpy(raw, &x, 8);
#if PY_BIG_ENDIAN
    for (int i = 0; i < 4; i++) {
        unsigned char t = raw[i];
        raw[i] = raw[7 - i];
        raw[7 - i] = t;
    }
#endif
    return pb_put(b, raw, 8);
}

static int pb_entries(pb_buf *b, const unsigned char *tag, int tag_len, PyObject *map, int depth);

/* The fields of a memorywire.v1.Value, as memorywire._compiled.pb_value. */
static int
pb_value(pb_buf *b, PyObject *v, int depth)
{
    static const unsigned char t_string = 0x2a, t_list = 0x32, t_map = 0x3a, t_item = 0x0a;
    PyTypeObject *t = Py_TYPE(v);
    if (depth > PB_MAX_DEPTH)
        return -1;
    if (t == &PyUnicode_Type)
        return pb_string(b, &t_string, 1, v);
    if (t == &PyLong_Type) {
        int overflow;
        const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred()))
            return -1;
        const uint64_t zigzag = ((uint64_t)x << 1) ^ (x < 0 ? UINT64_MAX : 0);
        if (pb_put(b, "\x18", 1) < 0)
            return -1;
        return pb_varint(b, zigzag);
    }
    if (t == &PyFloat_Type) {
        if (pb_put(b, "\x21", 1) < 0)
            return -1;
        return pb_double(b, PyFloat_AS_DOUBLE(v));
    }
    if (v == Py_True)
        return pb_put(b, "\x10\x01", 2);
    if (v == Py_False)
        return pb_put(b, "\x10\x00", 2);
    if (v == Py_None)
        return pb_put(b, "\x08\x00", 2);
    if (t == &PyList_Type) {
        Py_ssize_t at;
        if (pb_put(b, &t_list, 1) < 0 || (at = pb_open(b)) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++) {
            Py_ssize_t item;
            if (pb_put(b, &t_item, 1) < 0 || (item = pb_open(b)) < 0
                || pb_value(b, PyList_GET_ITEM(v, i), depth + 1) < 0 || pb_close(b, item) < 0)
                return -1;
        }
        return pb_close(b, at);
    }
    if (t == &PyDict_Type) {
        Py_ssize_t at;
        if (pb_put(b, &t_map, 1) < 0 || (at = pb_open(b)) < 0
            || pb_entries(b, &t_item, 1, v, depth + 1) < 0)
            return -1;
        return pb_close(b, at);
    }
    return -1;
}

/* A map from strings to Values as repeated MapEntry, sorted by key. */
static int
pb_entries(pb_buf *b, const unsigned char *tag, int tag_len, PyObject *map, int depth)
{
    static const unsigned char t_key = 0x0a, t_value = 0x12;
    if (depth > PB_MAX_DEPTH)
        return -1;
    PyObject *keys = PyDict_Keys(map);
    if (keys == NULL)
        return -1;
    const Py_ssize_t n = PyList_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(keys, i))) {
            Py_DECREF(keys);
            return -1;
        }
    }
    if (n > 1 && PyList_Sort(keys) < 0) {
        Py_DECREF(keys);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        PyObject *value = PyDict_GetItemWithError(map, key);
        Py_ssize_t entry, inner;
        if (value == NULL || pb_put(b, tag, tag_len) < 0 || (entry = pb_open(b)) < 0
            || (PyUnicode_GET_LENGTH(key) && pb_string(b, &t_key, 1, key) < 0)
            || pb_put(b, &t_value, 1) < 0 || (inner = pb_open(b)) < 0
            || pb_value(b, value, depth + 1) < 0 || pb_close(b, inner) < 0 || pb_close(b, entry) < 0) {
            Py_DECREF(keys);
            return -1;
        }
    }
    Py_DECREF(keys);
    return 0;
}

/* A uint64 of an exact int, or -1 for anything else. */
static inline int
pb_uint(PyObject *v, uint64_t *out)
{
    if (!PyLong_CheckExact(v))
        return -1;
    const unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = x;
    return 0;
}

static inline int
pb_enum(const pb_field *f, PyObject *v, uint64_t *out)
{
    if (!PyUnicode_CheckExact(v))
        return -1;
    PyObject *number = PyDict_GetItemWithError(f->enum_map, v);
    if (number == NULL)
        return -1;
    return pb_uint(number, out);
}

/* The little-endian binary32 values of a float32 vector: the bytes it was
 * read from, or its values rounded to nearest (as struct packs them). */
static int
pb_vector(pb_buf *b, const pb_field *f, PyObject *v)
{
    if ((PyObject *)Py_TYPE(v) == pb_vector_type) {
        PyObject *raw = PyObject_GetAttr(v, pb_raw_name);
        if (raw == NULL)
            return -1;
        int r = -1;
        if (PyBytes_CheckExact(raw) && pb_tag(b, f) == 0
            && pb_varint(b, (uint64_t)PyBytes_GET_SIZE(raw)) == 0)
            r = pb_put(b, PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw));
        Py_DECREF(raw);
        return r;
    }
    if (!PyList_CheckExact(v))
        return -1;
    const Py_ssize_t n = PyList_GET_SIZE(v);
    if (n > PY_SSIZE_T_MAX / 8 || pb_tag(b, f) < 0 || pb_varint(b, (uint64_t)n * 4) < 0
        || pb_reserve(b, n * 4) < 0)
        return -1;
    unsigned char *q = b->data + b->len;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(v, i);
        double d;
        if (PyFloat_CheckExact(x))
            d = PyFloat_AS_DOUBLE(x);
        else if (PyLong_CheckExact(x)) {
            d = PyLong_AsDouble(x);
            if (d == -1.0 && PyErr_Occurred())
                return -1;
        }
        else
            return -1;
        const float y = (float)d;
        if (isinf(y) && !isinf(d))
            return -1; /* struct refuses it */
        unsigned char raw[4];
        memcpy(raw, &y, 4);
#if PY_BIG_ENDIAN
        unsigned char t = raw[0];
        raw[0] = raw[3];
        raw[3] = t;
        t = raw[1];
        raw[1] = raw[2];
        raw[2] = t;
#endif
        memcpy(q, raw, 4);
        q += 4;
    }
    b->len += n * 4;
    return 0;
}

static int pb_message(pb_buf *b, Py_ssize_t index, PyObject *d, int depth);

static int
pb_nested(pb_buf *b, const pb_field *f, PyObject *v, int depth)
{
    Py_ssize_t at;
    if (!PyDict_CheckExact(v) || pb_tag(b, f) < 0 || (at = pb_open(b)) < 0
        || pb_message(b, f->message, v, depth + 1) < 0)
        return -1;
    return pb_close(b, at);
}

static int
pb_field_value(pb_buf *b, const pb_field *f, PyObject *v, int depth)
{
    uint64_t u;
    switch (f->kind) {
    case PB_STRING:
        if (!f->presence && PyUnicode_CheckExact(v) && PyUnicode_GET_LENGTH(v) == 0)
            return 0;
        return pb_string(b, f->tag, f->tag_len, v);
    case PB_BOOL:
        if (v != Py_True && v != Py_False)
            return -1;
        if (v == Py_False && !f->presence)
            return 0;
        if (pb_tag(b, f) < 0)
            return -1;
        return pb_put(b, v == Py_True ? "\x01" : "\x00", 1);
    case PB_UINT:
        if (pb_uint(v, &u) < 0)
            return -1;
        if (u == 0 && !f->presence)
            return 0;
        if (pb_tag(b, f) < 0)
            return -1;
        return pb_varint(b, u);
    case PB_ENUM:
        if (!f->presence && PyUnicode_CheckExact(v) && PyUnicode_GET_LENGTH(v) == 0)
            return 0;
        if (pb_enum(f, v, &u) < 0 || pb_tag(b, f) < 0)
            return -1;
        return pb_varint(b, u);
    case PB_DOUBLE: {
        double x;
        if (PyFloat_CheckExact(v))
            x = PyFloat_AS_DOUBLE(v);
        else if (PyLong_CheckExact(v)) {
            x = PyLong_AsDouble(v);
            if (x == -1.0 && PyErr_Occurred())
                return -1;
        }
        else
            return -1;
        if (x == 0.0 && !signbit(x) && !f->presence)
            return 0;
        if (pb_tag(b, f) < 0)
            return -1;
        return pb_double(b, x);
    }
    case PB_BYTES:
        if (!f->presence && PyUnicode_CheckExact(v) && PyUnicode_GET_LENGTH(v) == 0)
            return 0;
        return pb_base64(b, f, v);
    case PB_TIMESTAMP:
        return pb_timestamp(b, f, v);
    case PB_MESSAGE:
        return pb_nested(b, f, v, depth);
    case PB_VALUE: {
        Py_ssize_t at;
        if (pb_tag(b, f) < 0 || (at = pb_open(b)) < 0 || pb_value(b, v, depth + 1) < 0)
            return -1;
        return pb_close(b, at);
    }
    case PB_MAP:
        if (!PyDict_CheckExact(v))
            return -1;
        if (PyDict_GET_SIZE(v) == 0)
            return 0;
        return pb_entries(b, f->tag, f->tag_len, v, depth + 1);
    case PB_UNSUPPORTED:
        return -1;
    case PB_VECTOR:
        if ((PyObject *)Py_TYPE(v) != pb_vector_type && !PyList_CheckExact(v))
            return -1;
        if (PyList_GET_SIZE(v) == 0)
            return 0;
        return pb_vector(b, f, v);
    default:
        break;
    }
    /* The other repeated fields: a list, nothing written where it is empty. */
    if (!PyList_CheckExact(v))
        return -1;
    const Py_ssize_t n = PyList_GET_SIZE(v);
    if (n == 0)
        return 0;
    switch (f->kind) {
    case PB_UINTS:
    case PB_ENUMS: {
        Py_ssize_t at;
        if (pb_tag(b, f) < 0 || (at = pb_open(b)) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyList_GET_ITEM(v, i);
            if ((f->kind == PB_UINTS ? pb_uint(x, &u) : pb_enum(f, x, &u)) < 0 || pb_varint(b, u) < 0)
                return -1;
        }
        return pb_close(b, at);
    }
    case PB_STRINGS:
        for (Py_ssize_t i = 0; i < n; i++)
            if (pb_string(b, f->tag, f->tag_len, PyList_GET_ITEM(v, i)) < 0)
                return -1;
        return 0;
    case PB_MESSAGES:
        for (Py_ssize_t i = 0; i < n; i++)
            if (pb_nested(b, f, PyList_GET_ITEM(v, i), depth) < 0)
                return -1;
        return 0;
    case PB_BYTESES:
        for (Py_ssize_t i = 0; i < n; i++)
            if (pb_base64(b, f, PyList_GET_ITEM(v, i)) < 0)
                return -1;
        return 0;
    case PB_TIMESTAMPS:
        for (Py_ssize_t i = 0; i < n; i++)
            if (pb_timestamp(b, f, PyList_GET_ITEM(v, i)) < 0)
                return -1;
        return 0;
    default:
        return -1;
    }
}

/* The fields of a message in field-number order; members the table does
 * not name are left out, as the walkers leave them. Member names must be
 * exact strs, as those of every map (pb_entries): then no Python code runs
 * during a write (a key's __eq__ could change the document under it). */
static int
pb_message(pb_buf *b, Py_ssize_t index, PyObject *d, int depth)
{
    if (depth > PB_MAX_DEPTH)
        return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    const pb_table *table = &pb_tables_[index];
    if (PyDict_GET_SIZE(d) <= PB_MEMBERS) {
        /* A document holds few of its type's fields: its members, put in
         * field-number order, take fewer lookups than the fields. */
        struct {
            Py_ssize_t at;
            PyObject *v;
        } members[PB_MEMBERS];
        int count = 0;
        while (PyDict_Next(d, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key))
                return -1;
            PyObject *at = PyDict_GetItemWithError(table->positions, key);
            if (at == NULL) {
                if (PyErr_Occurred())
                    return -1;
                continue;
            }
            const Py_ssize_t i = PyLong_AsSsize_t(at);
            int j = count++;
            for (; j > 0 && members[j - 1].at > i; j--)
                members[j] = members[j - 1];
            members[j].at = i;
            members[j].v = value;
        }
        for (int j = 0; j < count; j++) {
            const pb_field *f = &table->fields[members[j].at];
            PyObject *v = members[j].v;
            if (v == Py_None && f->kind != PB_VALUE)
                continue;
            if (pb_field_value(b, f, v, depth) < 0)
                return -1;
        }
        return 0;
    }
    while (PyDict_Next(d, &pos, &key, &value))
        if (!PyUnicode_CheckExact(key))
            return -1;
    for (Py_ssize_t i = 0; i < table->count; i++) {
        const pb_field *f = &table->fields[i];
        PyObject *v = PyDict_GetItemWithError(d, f->name);
        if (v == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        /* null is a value of a Value field, and absence for the others. */
        if (v == Py_None && f->kind != PB_VALUE)
            continue;
        if (pb_field_value(b, f, v, depth) < 0)
            return -1;
    }
    return 0;
}

static void
pb_free_tables(pb_table *tables, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        for (Py_ssize_t j = 0; j < tables[i].count; j++) {
            Py_XDECREF(tables[i].fields[j].name);
            Py_XDECREF(tables[i].fields[j].enum_map);
        }
        PyMem_Free(tables[i].fields);
        Py_XDECREF(tables[i].positions);
    }
    PyMem_Free(tables);
}

/* pb_tables(tables, vector_type): the field tables pb_write writes by, one
 * tuple per message type of (name, tag, kind, presence, message, enum_map)
 * tuples in field-number order (kind one of pb_kind_names), and the type of float32 vectors that keep
 * the bytes they were read from (in their attribute raw). */
static PyObject *
pb_set_tables(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "pb_tables takes a list of tables and a type");
        return NULL;
    }
    PyObject *list = args[0];
    const Py_ssize_t count = PyList_GET_SIZE(list);
    pb_table *tables = PyMem_Calloc((size_t)(count ? count : 1), sizeof(pb_table));
    if (tables == NULL)
        return PyErr_NoMemory();
    /* Filled in completely before it replaces the tables in use (parsing
     * an entry may run Python code, which may write). */
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *fields = PyList_GET_ITEM(list, i);
        if (!PyTuple_Check(fields)) {
            PyErr_SetString(PyExc_TypeError, "a table is a tuple of fields");
            goto fail;
        }
        const Py_ssize_t n = PyTuple_GET_SIZE(fields);
        tables[i].fields = PyMem_Calloc((size_t)(n ? n : 1), sizeof(pb_field));
        if (tables[i].fields == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        tables[i].count = n;
        if ((tables[i].positions = PyDict_New()) == NULL)
            goto fail;
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *entry = PyTuple_GET_ITEM(fields, j);
            pb_field *f = &tables[i].fields[j];
            PyObject *name, *tag, *enum_map;
            const char *kind_name;
            int kind, presence;
            Py_ssize_t message;
            if (!PyTuple_Check(entry)) {
                PyErr_SetString(PyExc_TypeError, "a field is a tuple");
                goto fail;
            }
            if (!PyArg_ParseTuple(entry, "USsinO", &name, &tag, &kind_name, &presence, &message, &enum_map))
                goto fail;
            for (kind = 0; kind < PB_KINDS && strcmp(kind_name, pb_kind_names[kind]) != 0; kind++)
                ;
            if (PyBytes_GET_SIZE(tag) < 1 || PyBytes_GET_SIZE(tag) > 5 || kind == PB_KINDS
                || (kind == PB_MESSAGE || kind == PB_MESSAGES ? message < 0 || message >= count : 0)
                || ((kind == PB_ENUM || kind == PB_ENUMS) && !PyDict_Check(enum_map))) {
                PyErr_SetString(PyExc_ValueError, "a field of a table is out of range");
                goto fail;
            }
            Py_INCREF(name);
            PyUnicode_InternInPlace(&name);
            f->name = name;
            PyObject *at = PyLong_FromSsize_t(j);
            if (at == NULL || PyDict_SetItem(tables[i].positions, name, at) < 0) {
                Py_XDECREF(at);
                goto fail;
            }
            Py_DECREF(at);
            Py_INCREF(enum_map);
            f->enum_map = enum_map;
            f->kind = kind;
            f->presence = presence != 0;
            f->message = message;
            f->tag_len = (int)PyBytes_GET_SIZE(tag);
            memcpy(f->tag, PyBytes_AS_STRING(tag), (size_t)f->tag_len);
        }
    }
    if (pb_raw_name == NULL && (pb_raw_name = PyUnicode_InternFromString("raw")) == NULL)
        goto fail;
    pb_table *old = pb_tables_;
    const Py_ssize_t old_count = pb_table_count;
    pb_tables_ = tables;
    pb_table_count = count;
    pb_free_tables(old, old_count);
    Py_INCREF(args[1]);
    Py_XSETREF(pb_vector_type, args[1]);
    Py_RETURN_NONE;
fail:
    pb_free_tables(tables, count);
    return NULL;
}

/* pb_write(index, d) -> bytes | None: the canonical Protobuf bytes of a
 * validated document of the message type of table number index, or None
 * where the writers in Python are to write it. */
static PyObject *
pb_write(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pb_write takes 2 arguments");
        return NULL;
    }
    const Py_ssize_t index = PyLong_AsSsize_t(args[0]);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= pb_table_count) {
        PyErr_SetString(PyExc_IndexError, "no table of that number");
        return NULL;
    }
    if (!PyDict_CheckExact(args[1]))
        Py_RETURN_NONE;
    unsigned char stack[1024];
    pb_buf b = {stack, 0, sizeof stack, stack};
    PyObject *out = NULL;
    int r = pb_message(&b, index, args[1], 0);
    if (r == 0)
        out = PyBytes_FromStringAndSize((const char *)b.data, b.len);
    if (b.data != stack)
        PyMem_Free(b.data);
    if (r == 0)
        return out;
    if (PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"json_scan", json_scan, METH_O, "The object members of a JSON text and whether it is clean, or None."},
    {"msgpack_scan", msgpack_scan, METH_O, "The map entries and timestamps of a MessagePack object, or None."},
    {"tree_counts", (PyCFunction)(void (*)(void))tree_counts, METH_FASTCALL,
     "The members of the dicts of a tree and its datetimes; with texts, datetimes become text."},
    {"value_ok", (PyCFunction)(void (*)(void))value_ok, METH_FASTCALL, "Whether a Value is within the rules."},
    /* The canonical Protobuf writer. */
    {"pb_tables", (PyCFunction)(void (*)(void))pb_set_tables, METH_FASTCALL,
     "Set the field tables of the Protobuf writer."},
    {"pb_write", (PyCFunction)(void (*)(void))pb_write, METH_FASTCALL,
     "The canonical Protobuf bytes of a validated document, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "memorywire._speedups", "Scans and counts of the typed fast path, and a Protobuf writer.", -1, methods,
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
