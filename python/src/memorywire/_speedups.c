/* The typed fast path (memorywire._fast), the canonical pass of the
 * writers and the canonical Protobuf writer (memorywire._encode), and the
 * reading of float32 vectors and the sums of their squares
 * (memorywire._compiled, and the service's records and vectors), in C.
 *
 * The fast path decodes a document with msgspec into dicts typed by the
 * field tables; msgspec keeps the last of repeated members and passes over
 * unknown ones. FastPath runs it whole in one call: a scan of the bytes
 * that counts their object members (map entries) and finds what the types
 * cannot judge, the decoder, and a walk of the decoded tree that counts
 * its members and holds the rules the types leave out. The scans and
 * counts are also functions of their own. Each reads only within its
 * input, whatever the input; when unsure it says so, and the walkers judge
 * the document.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <datetime.h>
#include <float.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 2**128 - 2**103: the least magnitude that rounds to an infinity in binary32
 * (memorywire._compiled.FLOAT32_OVERFLOW). */
#define FLOAT32_OVERFLOW 3.4028235677973366e38
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when a byte of the word is zero: exact about whether any is, and
 * about the lowest; a byte above a zero one may show as zero too. */
static inline uint64_t
zero_bytes(uint64_t w)
{
    return (w - ONES) & ~w & HIGHS;
}

/* How many bytes of a word precede the first one zero_bytes found (a lower
 * bound where the byte order is not known: the byte loop goes on from it). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_WORDS 1
#define FIRST_ZERO_BYTE(found) (__builtin_ctzll(found) >> 3)
#else
#define LITTLE_ENDIAN_WORDS 0
#define FIRST_ZERO_BYTE(found) 0
#endif

/* Nonzero when a byte of the word is a control character: below 0x20 or
 * DEL (exact about whether any is). */
#define HAS_CONTROL(w) ((((w) - ONES * 0x20) & ~(w) & HIGHS) | zero_bytes((w) ^ (ONES * 0x7f)))

/* The reading of the float32 vectors of a JSON text ahead of the typed
 * decoder. The scan reads each array of numbers that is the value of a
 * member named as a float32 vector field is, and the typed decoder gets
 * the text with a placeholder (the string "\u0001") in its place: it then
 * parses a few hundred bytes instead of thousands of digits. The walk puts
 * each vector back where it finds a placeholder in a vector field, in the
 * order of the text; a document in which any placeholder lands elsewhere
 * has fewer placeholders taken than given, and goes to the walkers. A
 * string decodes to the placeholder only where the text holds the byte 0x01
 * or the escape \u0001 (no other spelling of U+0001 exists in JSON): the
 * scan keeps the vectors it read only in a text that holds neither. */

#define IS_DIGIT(c) ((unsigned char)((c) - '0') < 10)
#define IS_SPACE(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')

/* The placeholder of a vector read by the scan, as JSON and as the text it decodes to. */
static const char VECTOR_PLACEHOLDER_JSON[] = "\"\\u0001\"";
#define VECTOR_PLACEHOLDER_CHAR 0x01

/* The fewest values of an array the scan reads: below, the decoder's own
 * parse costs about as much. */
#define READ_VECTOR_LEAST 16

/* The powers of five of the Eisel-Lemire algorithm, two words each (the
 * high first), from 5^-342 to 5^308, normalised and truncated to 128 bits;
 * set by memorywire._fast (decimal_powers), which computes them exactly. */
#define POWER_LEAST (-342)
#define POWER_MOST 308
static uint64_t decimal_powers_[2 * (POWER_MOST - POWER_LEAST + 1)];
static int have_decimal_powers = 0;

/* A number of a vector: an integer token's value, a binary64, or a token
 * to be read by PyOS_string_to_double once the interpreter lock is held. */
enum { N_INTEGER, N_REAL, N_TEXT };
typedef struct {
    int kind;
    union {
        long long integer;
        double real;
        struct {
            Py_ssize_t start, length;
        } text;
    } u;
} JsonNumber;

typedef struct {
    /* The member names of float32 vector fields. */
    const char *const *names;
    const Py_ssize_t *name_lengths;
    Py_ssize_t n_names;
    Py_ssize_t least, most; /* the fewest and most values of a vector read */
    /* The arrays read: their bytes [start, end) and their numbers. */
    struct VectorSpan {
        Py_ssize_t start, end, first, count;
    } *spans; /* PyMem_Raw, as numbers */
    Py_ssize_t n, spans_capacity;
    JsonNumber *numbers; /* PyMem_Raw: the scan may run without the interpreter lock */
    Py_ssize_t used, capacity;
} ReadVectors;

#if defined(__SIZEOF_INT128__) && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define EISEL_LEMIRE 1
#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* The binary64 nearest to w * 10^q (w > 0, q within the table), by the
 * Eisel-Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per
 * Second", 2021, sections 5 and 6): 1, or 0 where it cannot tell. Inlined
 * in both its callers: called, it made a vector about a sixth slower. */
static ALWAYS_INLINE int
eisel_lemire(int64_t q, uint64_t w, int negative, double *out)
{
    const int lz = __builtin_clzll(w);
    w <<= lz;
    const uint64_t *pow5 = &decimal_powers_[2 * (q - POWER_LEAST)];
    const unsigned __int128 first = (unsigned __int128)w * pow5[0];
    uint64_t hi = (uint64_t)(first >> 64), lo = (uint64_t)first;
    const uint64_t mask = UINT64_MAX >> 55; /* 52 mantissa bits + 3 */
    if ((hi & mask) == mask) {
        const uint64_t second = (uint64_t)(((unsigned __int128)w * pow5[1]) >> 64);
        lo += second;
        if (second > lo)
            hi++;
    }
    if (lo == UINT64_MAX && !(q >= -27 && q <= 55))
        return 0;
    const int upperbit = (int)(hi >> 63);
    const int shift = upperbit + 64 - 52 - 3;
    uint64_t mantissa = hi >> shift;
    int64_t power2 = (((q * (152170 + 65536)) >> 16) + 63) + upperbit - lz + 1023;
    if (power2 <= 0) {
        /* Subnormal. */
        if (-power2 + 1 >= 64) {
            mantissa = 0;
            power2 = 0;
        }
        else {
            mantissa >>= -power2 + 1;
            mantissa += mantissa & 1;
            mantissa >>= 1;
            power2 = mantissa >= (UINT64_C(1) << 52);
        }
    }
    else {
        /* Exactly halfway: round to even. */
        if (lo <= 1 && q >= -4 && q <= 23 && (mantissa & 3) == 1 && (mantissa << shift) == hi)
            mantissa &= ~UINT64_C(1);
        mantissa += mantissa & 1;
        mantissa >>= 1;
        if (mantissa >= (UINT64_C(2) << 52)) {
            mantissa = UINT64_C(1) << 52;
            power2++;
        }
        mantissa &= ~(UINT64_C(1) << 52);
        if (power2 >= 0x7FF) {
            power2 = 0x7FF;
            mantissa = 0;
        }
    }
    const uint64_t bits = mantissa | ((uint64_t)power2 << 52) | ((uint64_t)negative << 63);
    memcpy(out, &bits, sizeof bits);
    return 1;
}

#else
#define EISEL_LEMIRE 0
#endif

#if LITTLE_ENDIAN_WORDS
/* Whether the 8 bytes of a little-endian word are all ASCII digits, and
 * their value (the SWAR reading of fast_float). */
static inline int
eight_digits(uint64_t v)
{
    return ((v & 0xF0F0F0F0F0F0F0F0ULL) | (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4))
           == 0x3333333333333333ULL;
}

static inline uint64_t
eight_digits_value(uint64_t v)
{
    const uint64_t mask = 0x000000FF000000FFULL;
    v -= 0x3030303030303030ULL;
    v = v * 10 + (v >> 8);
    return (((v & mask) * 0x000F424000000064ULL) + (((v >> 16) & mask) * 0x0000271000000001ULL)) >> 32;
}
#endif

#if defined(__SSE2__)
#define DIGITS_AT_ONCE 1
/* Masks of 16 lanes: a load at LANES + k keeps the last k lanes of a word,
 * one at LANES + 32 - k the first k (k from 0 to 16). */
static const unsigned char LANES[48] = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
};

/* The length of the run of digits that the 32 bytes a, b begin with. */
static inline int
digit_run_of(__m128i a, __m128i b)
{
    /* c is a digit when c - ('0' + 128) is below -118, as a signed byte. */
    const __m128i shift = _mm_set1_epi8((char)('0' + 128)), bound = _mm_set1_epi8(-118);
    const uint64_t digits = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(_mm_sub_epi8(a, shift), bound))
                            | (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(_mm_sub_epi8(b, shift), bound)) << 16;
    return __builtin_ctzll(~digits);
}

/* The length of the run of digits at s, up to 32: s[0, 32) is read. */
static inline int
digit_run(const unsigned char *s)
{
    return digit_run_of(_mm_loadu_si128((const __m128i *)s), _mm_loadu_si128((const __m128i *)(s + 16)));
}

/* The number the 16 lanes of t spell, each lane a digit's value and lane 0
 * the most significant: pairs, then fours, then eights. */
static inline uint64_t
sixteen_digits(__m128i t)
{
    const __m128i pairs = _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(t, _mm_set1_epi16(0xFF)), _mm_set1_epi16(10)),
                                        _mm_srli_epi16(t, 8));
    const __m128i fours = _mm_madd_epi16(pairs, _mm_set_epi16(1, 100, 1, 100, 1, 100, 1, 100));
    const __m128i packed = _mm_packs_epi32(fours, fours);
    const __m128i eights = _mm_madd_epi16(packed, _mm_set_epi16(1, 10000, 1, 10000, 1, 10000, 1, 10000));
    return (uint64_t)(uint32_t)_mm_cvtsi128_si32(eights) * 100000000
           + (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(eights, 4));
}

/* The value of the `length` (1 to 19) digits that end at e, without a
 * branch: the last 16 in one 16-byte word, the 3 before them in one 4-byte
 * word (the bytes before the digits read as zeros). e[-20, 0) is read. */
static inline uint64_t
digits_before(const unsigned char *e, int length)
{
    const int lanes = length < 16 ? length : 16;
    const __m128i t = _mm_and_si128(_mm_sub_epi8(_mm_loadu_si128((const __m128i *)(e - 16)), _mm_set1_epi8('0')),
                                    _mm_loadu_si128((const __m128i *)(LANES + lanes)));
    /* The 0 to 3 digits before those, in the top bytes of the little-endian
     * word e[-20, -16). */
    static const uint32_t top_bytes[4] = {0, 0xFF000000u, 0xFFFF0000u, 0xFFFFFF00u};
    const uint32_t keep = top_bytes[length > 16 ? length - 16 : 0];
    uint32_t before;
    memcpy(&before, e - 20, 4);
    before = ((before & keep) | (0x30303030u & ~keep)) - 0x30303030u;
    before = before * 10 + (before >> 8); /* bytes 0 and 2: two digits each */
    const uint64_t first = (before & 0xFF) * 100 + ((before >> 16) & 0xFF);
    return first * 10000000000000000ULL + sixteen_digits(t);
}

static const uint64_t powers_of_ten[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL,
};
#else
#define DIGITS_AT_ONCE 0
#endif

/* Read the JSON number at p[k] (RFC 8259 section 6) into out: the offset
 * after it, or -1 where it is not one, or not one a float32 vector reads
 * here: an integer token of more than 18 digits or -0 (the walkers judge
 * those), a value beyond the float32 range. */
static Py_ssize_t
read_number(const unsigned char *p, Py_ssize_t k, const Py_ssize_t n, JsonNumber *out)
{
    const Py_ssize_t start = k;
    /* The sign without a branch: half the values of a vector are negative. */
    const int negative = k < n && p[k] == '-';
    k += negative;
    if (k >= n || !IS_DIGIT(p[k]))
        return -1;
    uint64_t w = 0; /* the first 19 significant digits */
    int digits = 0, dropped = 0, integer = 1;
    int64_t q = 0; /* the value is w * 10^q, give or take the digits dropped */
    if (p[k] == '0')
        k++;
    else
        for (; k < n && IS_DIGIT(p[k]); k++) {
            if (digits < 19) {
                w = w * 10 + (p[k] - '0');
                digits++;
            }
            else {
                dropped = 1;
                q++;
            }
        }
    if (k < n && p[k] == '.') {
        integer = 0;
        if (++k >= n || !IS_DIGIT(p[k]))
            return -1;
        if (w == 0)
            for (; k < n && p[k] == '0'; k++)
                q--;
#if LITTLE_ENDIAN_WORDS
        while (digits <= 11 && n - k >= 8) {
            uint64_t word;
            memcpy(&word, p + k, 8);
            if (!eight_digits(word))
                break;
            w = w * 100000000 + eight_digits_value(word);
            digits += 8;
            q -= 8;
            k += 8;
        }
#endif
        for (; k < n && IS_DIGIT(p[k]); k++) {
            if (w == 0 && p[k] == '0')
                q--;
            else if (digits < 19) {
                w = w * 10 + (p[k] - '0');
                digits++;
                q--;
            }
            else
                dropped = 1;
        }
    }
    if (k < n && (p[k] == 'e' || p[k] == 'E')) {
        integer = 0;
        int exponent_negative = 0;
        if (++k < n && (p[k] == '+' || p[k] == '-'))
            exponent_negative = p[k++] == '-';
        if (k >= n || !IS_DIGIT(p[k]))
            return -1;
        int64_t e = 0;
        for (; k < n && IS_DIGIT(p[k]); k++)
            if (e < 100000)
                e = e * 10 + (p[k] - '0');
        q += exponent_negative ? -e : e;
    }
    if (integer) {
        if (dropped || digits > 18 || (negative && w == 0))
            return -1;
        out->kind = N_INTEGER;
        out->u.integer = negative ? -(long long)w : (long long)w;
        return k;
    }
    double d;
    if (w == 0)
        d = negative ? -0.0 : 0.0;
#if EISEL_LEMIRE
    /* Eisel-Lemire for every value, also one Clinger's exact path could
     * take: the values of a vector take one path or the other at random,
     * and one path for all reads a vector in about 9% less time. */
    else if (!dropped && q < POWER_LEAST)
        d = negative ? -0.0 : 0.0;
    else if (!dropped && q > POWER_MOST)
        return -1; /* beyond the range */
    else if (dropped || !have_decimal_powers || !eisel_lemire(q, w, negative, &d)) {
#else
    else {
#endif
        out->kind = N_TEXT;
        out->u.text.start = start;
        out->u.text.length = k - start;
        return k;
    }
    if (!(fabs(d) < FLOAT32_OVERFLOW))
        return -1;
    out->kind = N_REAL;
    out->u.real = d;
    return k;
}

#if DIGITS_AT_ONCE && EISEL_LEMIRE
/* Read a number of the plain shape most vectors hold, -?(0|[1-9][0-9]*).[0-9]+
 * with 19 digits or fewer, at p[k] where p[k - 20, k + 64) is within the
 * text: the offset after it, or -1 for read_number to read it (anything
 * else, even a number: this reads only what it is sure of). Its digits at
 * once: a loop over them would stop at a different digit each time. */
/* Set out to w * 10^q (w below 10^19, q from -19 to -1, so within the
 * float32 range): 1, or 0 where Eisel-Lemire cannot tell. */
static ALWAYS_INLINE int
plain_value(uint64_t w, int q, int negative, JsonNumber *out)
{
    double d;
    if (w == 0)
        d = negative ? -0.0 : 0.0;
    else if (!have_decimal_powers || !eisel_lemire(q, w, negative, &d))
        return 0;
    out->kind = N_REAL;
    out->u.real = d;
    return 1;
}

static inline Py_ssize_t
read_plain_number(const unsigned char *p, Py_ssize_t k, JsonNumber *out)
{
    const int negative = p[k] == '-';
    const unsigned char *s = p + k + negative, *fraction;
    if (s[0] == '0' && s[1] == '.') {
        /* Below one, as the values of most vectors are: the first 19
         * digits of the fraction, zeros past its end, times 10^-19. */
        fraction = s + 2;
        const __m128i a = _mm_loadu_si128((const __m128i *)fraction),
                      b = _mm_loadu_si128((const __m128i *)(fraction + 16));
        const int run = digit_run_of(a, b);
        if (run == 0 || run > 19 || (fraction[run] | 0x20) == 'e')
            return -1;
        const __m128i t = _mm_and_si128(_mm_sub_epi8(a, _mm_set1_epi8('0')),
                                        _mm_loadu_si128((const __m128i *)(LANES + 32 - (run < 16 ? run : 16))));
        /* Digits 16 to 18 in the low bytes of a little-endian word. */
        static const uint32_t low_bytes[4] = {0, 0xFFu, 0xFFFFu, 0xFFFFFFu};
        const uint32_t keep = low_bytes[run > 16 ? run - 16 : 0];
        uint32_t after;
        memcpy(&after, fraction + 16, 4);
        after = ((after & keep) | (0x30303030u & ~keep)) - 0x30303030u;
        const uint32_t pairs = after * 10 + (after >> 8); /* byte 0: digits 16 and 17 */
        const uint64_t w = sixteen_digits(t) * 1000 + (pairs & 0xFF) * 10 + ((after >> 16) & 0xFF);
        /* A constant exponent: Eisel-Lemire folds its power and table entry. */
        return plain_value(w, -19, negative, out) ? fraction + run - p : -1;
    }
    else {
        const int whole = digit_run(s);
        if (whole == 0 || whole > 19 || s[whole] != '.' || s[0] == '0') /* no leading zero */
            return -1;
        fraction = s + whole + 1;
        const int run = digit_run(fraction);
        if (run == 0 || whole + run > 19 || (fraction[run] | 0x20) == 'e')
            return -1;
        const uint64_t w = digits_before(s + whole, whole) * powers_of_ten[run] + digits_before(fraction + run, run);
        return plain_value(w, -run, negative, out) ? fraction + run - p : -1;
    }
}
#endif

/* Read the array of numbers whose '[' is at p[k]: the offset after its
 * ']', or -1 where it is not one the scan reads (its numbers dropped). */
static Py_ssize_t
read_vector(ReadVectors *rv, const unsigned char *p, Py_ssize_t k, const Py_ssize_t n)
{
    const Py_ssize_t first = rv->used, open = k;
    k++;
    while (k < n && IS_SPACE(p[k]))
        k++;
    for (;;) {
        if (rv->used == rv->capacity) {
            const Py_ssize_t more = rv->capacity ? 2 * rv->capacity : 1024;
            JsonNumber *grown = PyMem_RawRealloc(rv->numbers, (size_t)more * sizeof(JsonNumber));
            if (grown == NULL)
                break;
            rv->numbers = grown;
            rv->capacity = more;
        }
        JsonNumber *number = &rv->numbers[rv->used];
#if DIGITS_AT_ONCE && EISEL_LEMIRE
        const Py_ssize_t plain = k >= 20 && n - k >= 64 ? read_plain_number(p, k, number) : -1;
        k = plain >= 0 ? plain : read_number(p, k, n, number);
#else
        k = read_number(p, k, n, number);
#endif
        if (k < 0 || rv->used - first >= rv->most)
            break;
        rv->used++;
        if (k < n && p[k] == ',' && k + 1 < n && !IS_SPACE(p[k + 1])) {
            k++; /* the compact form */
            continue;
        }
        while (k < n && IS_SPACE(p[k]))
            k++;
        if (k >= n)
            break;
        if (p[k] == ']') {
            const Py_ssize_t count = rv->used - first;
            if (count < rv->least)
                break;
            if (rv->n == rv->spans_capacity) {
                const Py_ssize_t more = rv->spans_capacity ? 2 * rv->spans_capacity : 16;
                struct VectorSpan *grown = PyMem_RawRealloc(rv->spans, (size_t)more * sizeof *grown);
                if (grown == NULL)
                    break;
                rv->spans = grown;
                rv->spans_capacity = more;
            }
            rv->spans[rv->n++] = (struct VectorSpan){open, k + 1, first, count};
            return k + 1;
        }
        if (p[k] != ',')
            break;
        k++;
        while (k < n && IS_SPACE(p[k]))
            k++;
    }
    rv->used = first;
    return -1;
}

/* Whether a member name (its bytes between the quotes) is that of a float32 vector field. */
static int
is_vector_name(const ReadVectors *rv, const unsigned char *name, Py_ssize_t length)
{
    for (Py_ssize_t k = 0; k < rv->n_names; k++)
        if (rv->name_lengths[k] == length && memcmp(rv->names[k], name, (size_t)length) == 0)
            return 1;
    return 0;
}

/* The scan of json_scan over n bytes at p: 1 with the members and whether
 * the text is clean, 0 when unsure. With rv, it reads the float32 vectors
 * of a text in which no string can decode to the placeholder (rv->n of
 * them; none in any other text). */
static int
json_scan_bytes(const unsigned char *p, const Py_ssize_t n, long long *members_out, int *clean_out, ReadVectors *rv)
{
    Py_ssize_t i = 0;
    long long members = 0;
    int escaped_name = 0; /* whether the last string held a backslash */
    int escapes = 0;
    int placeholder_escape = 0; /* whether the text holds the escape \u0001 */
    const unsigned char *name = NULL; /* the bytes of the last string, between its quotes */
    Py_ssize_t name_length = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c == '"') {
            /* A string: find its closing quote, stepping over escapes, a
             * word at a time while no byte of it is a quote or a backslash. */
            const unsigned char *end = p + n, *s = p + i + 1;
            int backslash = 0;
            for (;;) {
                while (end - s >= 8) {
                    uint64_t w;
                    memcpy(&w, s, 8);
                    const uint64_t found = zero_bytes(w ^ (ONES * '"')) | zero_bytes(w ^ (ONES * '\\'));
                    if (found) {
                        s += FIRST_ZERO_BYTE(found);
                        break;
                    }
                    s += 8;
                }
                while (s < end && *s != '"' && *s != '\\')
                    s++;
                if (s >= end) {
                    s = end;
                    break;
                }
                if (*s == '"') {
                    s++;
                    break;
                }
                backslash = 1;
                if (end - s >= 6 && memcmp(s, "\\u0001", 6) == 0)
                    placeholder_escape = 1;
                s += 2; /* the backslash and the byte it escapes */
                if (s >= end) {
                    s = end;
                    break;
                }
            }
            name = p + i + 1;
            name_length = s - name - 1;
            i = s - p;
            escaped_name = backslash;
            escapes |= backslash;
            continue;
        }
        if (c == ':') {
            members++;
            if (escaped_name)
                return 0;
            if (rv != NULL && name != NULL
                && is_vector_name(rv, name, name_length)) {
                Py_ssize_t k = i + 1;
                while (k < n && IS_SPACE(p[k]))
                    k++;
                if (k < n && p[k] == '[') {
                    const Py_ssize_t after = read_vector(rv, p, k, n);
                    if (after > 0) {
                        i = after;
                        continue;
                    }
                }
            }
        }
        else if (c == '-') {
            /* -0 not followed by a fraction, an exponent or a digit. */
            if (i + 1 < n && p[i + 1] == '0') {
                if (i + 2 >= n)
                    return 0;
                const unsigned char d = p[i + 2];
                if (d != '.' && d != 'e' && d != 'E' && !(d >= '0' && d <= '9'))
                    return 0;
            }
        }
        i++;
    }
    *members_out = members;
    *clean_out = !escapes && memchr(p, 0x7f, (size_t)n) == NULL;
    if (rv != NULL && rv->n && (placeholder_escape || memchr(p, VECTOR_PLACEHOLDER_CHAR, (size_t)n) != NULL)) {
        rv->n = 0;
        rv->used = 0;
    }
    return 1;
}

/* Documents at least this long are scanned with the interpreter lock released. */
#define LONG_DOCUMENT 65536

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
    long long members = 0;
    int clean = 0, sure;
    Py_BEGIN_ALLOW_THREADS
    sure = json_scan_bytes((const unsigned char *)view.buf, view.len, &members, &clean, NULL);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (!sure)
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
static int
msgpack_scan_bytes(const unsigned char *p, const Py_ssize_t n, long long *members_out, long long *timestamps_out,
                   int *clean_out)
{
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
            /* A control character is one byte in UTF-8, never part of
             * another: below 0x20 or DEL, a word at a time. */
            const unsigned char *c = p + i, *end = p + i + skip;
            for (; end - c >= 8 && clean; c += 8) {
                uint64_t w;
                memcpy(&w, c, 8);
                if (HAS_CONTROL(w))
                    clean = 0;
            }
#if LITTLE_ENDIAN_WORDS
            if (c < end && clean && (p + n) - c >= 8) {
                /* The last bytes, read as a word within the data, the bytes
                 * beyond them made 'A' (no control character). */
                uint64_t w;
                memcpy(&w, c, 8);
                const uint64_t keep = (1ULL << (8 * (end - c))) - 1;
                if (HAS_CONTROL((w & keep) | (ONES * 'A' & ~keep)))
                    clean = 0;
                c = end;
            }
#endif
            for (; c < end && clean; c++)
                if (*c < 0x20 || *c == 0x7f)
                    clean = 0;
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
    *members_out = members;
    *timestamps_out = timestamps;
    *clean_out = clean;
    return ok;
}

static PyObject *
msgpack_scan(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    long long members = 0, timestamps = 0;
    int clean = 0, sure;
    Py_BEGIN_ALLOW_THREADS
    sure = msgpack_scan_bytes((const unsigned char *)view.buf, view.len, &members, &timestamps, &clean);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (!sure)
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
    char text[32];
    Py_ssize_t n = 0;
    const int fields[6] = {PyDateTime_GET_YEAR(dt), PyDateTime_GET_MONTH(dt), PyDateTime_GET_DAY(dt),
                           PyDateTime_DATE_GET_HOUR(dt), PyDateTime_DATE_GET_MINUTE(dt),
                           PyDateTime_DATE_GET_SECOND(dt)};
    static const char after[6] = {'-', '-', 'T', ':', ':', 0};
    for (int k = 0; k < 6; k++) {
        int v = fields[k];
        if (k == 0) { /* the year, 1 to 9999: four digits */
            text[n++] = (char)('0' + v / 1000);
            text[n++] = (char)('0' + v / 100 % 10);
        }
        text[n++] = (char)('0' + v / 10 % 10);
        text[n++] = (char)('0' + v % 10);
        if (after[k])
            text[n++] = after[k];
    }
    int us = PyDateTime_DATE_GET_MICROSECOND(dt), digits = 6;
    if (us % 1000 == 0) {
        us /= 1000;
        digits = 3;
    }
    if (us != 0) {
        text[n++] = '.';
        for (int k = digits - 1; k >= 0; k--, us /= 10)
            text[n + k] = (char)('0' + us % 10);
        n += digits;
    }
    text[n++] = 'Z';
    PyObject *s = PyUnicode_New(n, 127);
    if (s != NULL)
        memcpy(PyUnicode_1BYTE_DATA(s), text, (size_t)n);
    return s;
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

/* The greatest magnitude of a float of a Value the fast path accepts: a
 * larger one might be the binary64 value of a long integer token. */
#define LARGE_FLOAT 9.2e18

/* Whether a Value is within the rules (1), not certainly (0), or an error
 * (-1); adds the members of its dicts to *members. */
static int
value_in_rules(PyObject *v, long depth, long max_depth, Py_ssize_t max_items, Py_ssize_t max_chars,
               long long *members)
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
        *members += PyDict_GET_SIZE(v);
        Py_ssize_t pos = 0;
        PyObject *key, *x;
        int r = 1;
        while (r == 1 && PyDict_Next(v, &pos, &key, &x)) {
            if (Py_TYPE(key) != &PyUnicode_Type || PyUnicode_GET_LENGTH(key) > max_chars)
                r = 0;
            else
                r = value_in_rules(x, depth + 1, max_depth, max_items, max_chars, members);
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
            r = value_in_rules(PyList_GET_ITEM(v, k), depth + 1, max_depth, max_items, max_chars, members);
        Py_LeaveRecursiveCall();
        return r;
    }
    return 0;
}

/* value_ok(v, depth, max_depth, max_items, max_chars) -> bool: whether a
 * Value at depth is certainly within the rules (value_in_rules). */
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
    long long members = 0;
    int r = value_in_rules(args[0], depth, max_depth, max_items, max_chars, &members);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

/* Write d, rounded to the nearest binary32, as 4 little-endian bytes at p
 * (d finite and below FLOAT32_OVERFLOW in magnitude, where the cast is defined). */
static inline void
store_float32_le(unsigned char *p, double d)
{
    const float f = (float)d;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    p[0] = (unsigned char)bits;
    p[1] = (unsigned char)(bits >> 8);
    p[2] = (unsigned char)(bits >> 16);
    p[3] = (unsigned char)(bits >> 24);
}

/* float32_le(values) -> bytes | None: the little-endian binary32 bytes of a
 * list or tuple of floats and ints, each rounded to nearest as a C cast (and
 * so struct and array) rounds it; None when an item is of another type, an
 * integer has no binary64 value, or a value is not finite once rounded. A
 * vector it gives bytes for is valid (check_vector); one it refuses the
 * walkers judge. */
/* The items ahead that float32_le asks the processor to load while it
 * converts one: a caller's floats are often far from the cache. */
#define PREFETCH 16
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_OBJECT(p) __builtin_prefetch((p))
#else
#define PREFETCH_OBJECT(p) ((void)(p))
#endif

static PyObject *
float32_le(PyObject *self, PyObject *values)
{
    if (!PyList_CheckExact(values) && !PyTuple_CheckExact(values))
        Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    PyObject *out = PyBytes_FromStringAndSize(NULL, 4 * n);
    if (out == NULL)
        return NULL;
    unsigned char *p = (unsigned char *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = items[i];
        if (i + PREFETCH < n)
            PREFETCH_OBJECT(items[i + PREFETCH]);
        double d;
        if (PyFloat_CheckExact(x)) {
            d = PyFloat_AS_DOUBLE(x);
        }
        else if (PyLong_CheckExact(x)) {
            d = PyLong_AsDouble(x);
            if (d == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
        }
        else {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        /* Below the midpoint of the greatest binary32 and 2**128 a value
         * rounds to a finite binary32; at or above it, or NaN, it does not
         * (and the cast is not defined). */
        if (!(fabs(d) < FLOAT32_OVERFLOW)) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        store_float32_le(p + 4 * i, d);
    }
    return out;
}

/* FastPath: the whole typed fast path of one message type in one encoding,
 * in one call: the scan of the bytes, the msgspec decoder (of the clean
 * types where the scan allows), then one walk of the decoded tree, led by
 * tables that memorywire._fast derives from the field tables. The walk
 * counts the members (and in MessagePack the datetimes) of the tree, holds
 * the rules the types leave out (oneofs, the values of Value and map
 * fields, the tests of rules that span fields) and gives MessagePack
 * values the form the walkers give them. It returns the document or None:
 * it only ever accepts. */

/* What the walk does with a member (the kinds of the field table). */
enum {
    F_NONE = 0,     /* nothing: the member of a oneof the types have judged */
    F_MESSAGE,      /* a message: walked */
    F_MESSAGES,     /* a list of messages: each walked */
    F_VALUE,        /* a Value or a map: value_in_rules */
    F_VALUES,       /* a repeated Value: no null, value_in_rules */
    F_TIMESTAMP,    /* (MessagePack) datetimes: counted, given their canonical spelling */
    F_BYTES,        /* (MessagePack) bytes, or a list of them: given their base64 text */
    F_VECTOR,       /* (MessagePack) a float32 vector: whole, finite, within counts; given as a list */
    F_JSON_VECTOR,  /* (JSON) a float32 vector: judged by the types, or the placeholder of one the scan read;
                     * given as a list, or, with the helper vector, as what it gives of its binary32 bytes */
};

/* The tests of rules that span fields; each reads the members named in
 * the table, in the order given there. */
enum { S_NONE = 0, S_RECORD, S_MEDIA, S_TOOL_RESULT, S_EMBEDDING, S_PROCEDURE };

static const struct {
    const char *name;
    int code;
    Py_ssize_t names;
} special_tests[] = {
    {"record", S_RECORD, 4},           /* lifecycle, status, the deleted status, kind */
    {"media", S_MEDIA, -1},            /* any number of members, one of them true */
    {"tool_result", S_TOOL_RESULT, 2}, /* output, output_parts */
    {"embedding", S_EMBEDDING, 2},     /* dimensions, values */
    {"procedure", S_PROCEDURE, 3},     /* states, then the members that name one */
};

/* The most oneofs a message of the tables may have. */
#define MAX_ONEOFS 32

typedef struct {
    int kind;
    Py_ssize_t message;     /* F_MESSAGE, F_MESSAGES */
    Py_ssize_t least, most; /* F_VECTOR, F_JSON_VECTOR: the bounds of its count */
    int oneof;              /* the index of its oneof in its message, or -1 */
} Field;

/* The slots of the cache of member names of a message (a power of 2). */
#define KEY_CACHE 64

typedef struct {
    PyObject *key;    /* a member name the decoder gave, held; NULL: free */
    Py_ssize_t field; /* its field, or -1 */
} CachedKey;

typedef struct {
    PyObject *fields; /* dict: member name -> index of its Field; members without a job are absent */
    /* The fields of the member names seen, by identity: the decoder gives
     * the names of a type's members as the same objects every time. */
    CachedKey cache[KEY_CACHE];
    Py_ssize_t n_oneofs;
    char exactly[MAX_ONEOFS]; /* of each oneof, whether exactly one member is set (else at most one) */
    int special;
    PyObject *names;  /* tuple: the members the special test reads */
} Message;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int msgpack;
    PyObject *decode, *decode_clean, *errors;
    PyObject *vector, *b64;
    /* (JSON) The member names of float32 vector fields, for the scan. */
    PyObject *vector_names;
    const char **names;
    Py_ssize_t *name_lengths;
    Py_ssize_t n_names;
    Message *messages;
    Py_ssize_t n_messages;
    Field *fields;
    Py_ssize_t n_fields;
    Py_ssize_t top;
    Py_ssize_t max_document_bytes, max_items, max_chars;
    long max_depth;
    long long max_dimensions;
} FastPath;

typedef struct {
    long long members, datetimes;
    /* (JSON) The vectors the scan read, in the order of the text, and how many placeholders took one. */
    PyObject **vectors;
    Py_ssize_t n_vectors, taken;
} Counts;

static int walk(FastPath *fp, Py_ssize_t m, PyObject *d, long depth, Counts *counts);

/* The value of a member, borrowed, or NULL (absent or an error: see PyErr_Occurred). */
static inline PyObject *
member(PyObject *d, PyObject *name)
{
    return PyDict_GetItemWithError(d, name);
}

/* Whether a member is set to something true (1), not (0), or an error (-1). */
static int
member_true(PyObject *d, PyObject *name)
{
    PyObject *v = member(d, name);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyObject_IsTrue(v);
}

/* The test of the rules that span the fields of a message: conservative,
 * as the walkers would judge the message or stricter. */
static int
special_test(FastPath *fp, Message *msg, PyObject *d)
{
    PyObject *const *names = &PyTuple_GET_ITEM(msg->names, 0);
    switch (msg->special) {
    case S_RECORD: {
        /* A live record whose payload is the member its kind names. */
        PyObject *lifecycle = member(d, names[0]);
        if (lifecycle != NULL) {
            if (!PyDict_CheckExact(lifecycle))
                return 0;
            PyObject *status = member(lifecycle, names[1]);
            if (status != NULL) {
                int deleted = PyObject_RichCompareBool(status, names[2], Py_EQ);
                if (deleted != 0)
                    return deleted < 0 ? -1 : 0;
            }
            else if (PyErr_Occurred())
                return -1;
        }
        else if (PyErr_Occurred())
            return -1;
        PyObject *kind = member(d, names[3]);
        if (kind == NULL)
            return PyErr_Occurred() ? -1 : 0;
        return PyDict_Contains(d, kind);
    }
    case S_MEDIA:
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(msg->names); k++) {
            int r = member_true(d, names[k]);
            if (r != 0)
                return r;
        }
        return 0;
    case S_TOOL_RESULT: {
        PyObject *output = member(d, names[0]);
        if (output == NULL)
            return PyErr_Occurred() ? -1 : 1;
        if (output == Py_None)
            return 1;
        int parts = member_true(d, names[1]);
        return parts < 0 ? -1 : !parts;
    }
    case S_EMBEDDING: {
        /* The dimensions within the limit, as many as the values (four
         * bytes each in a MessagePack bin). */
        PyObject *dims = member(d, names[0]);
        if (dims == NULL)
            return PyErr_Occurred() ? -1 : 1;
        if (dims == Py_None)
            return 1;
        if (!PyLong_CheckExact(dims))
            return 0;
        int overflow = 0;
        const long long n = PyLong_AsLongLongAndOverflow(dims, &overflow);
        if (n == -1 && PyErr_Occurred())
            return -1;
        if (overflow || n > fp->max_dimensions)
            return 0;
        PyObject *values = member(d, names[1]);
        if (values == NULL)
            return PyErr_Occurred() ? -1 : 1;
        if (values == Py_None)
            return 1;
        const Py_ssize_t len = PyObject_Length(values);
        if (len < 0)
            return -1;
        /* (In MessagePack this runs before the job that makes a list of the bytes.) */
        return n == (long long)(PyBytes_Check(values) ? len / 4 : len);
    }
    case S_PROCEDURE: {
        /* The states a procedure names are among its states. */
        PyObject *states = member(d, names[0]);
        if (states == NULL)
            return PyErr_Occurred() ? -1 : 1;
        if (states == Py_None)
            return 1;
        for (Py_ssize_t k = 1; k < PyTuple_GET_SIZE(msg->names); k++) {
            PyObject *v = member(d, names[k]);
            if (v == NULL) {
                if (PyErr_Occurred())
                    return -1;
                continue;
            }
            int set = PyObject_IsTrue(v);
            if (set < 0)
                return -1;
            if (set) {
                int in = PySequence_Contains(states, v);
                if (in <= 0)
                    return in;
            }
        }
        return 1;
    }
    }
    return 1;
}

/* A datetime replaced by its canonical spelling in a dict or a list (the
 * container keeps a reference to the text). */
static PyObject *
canonical_time(PyObject *v, Counts *counts)
{
    counts->datetimes++;
    return timestamp_text(v);
}

/* The job of one member of a message at depth; 1, 0 or -1 as walk. */
static int
member_job(FastPath *fp, const Field *f, PyObject *d, PyObject *key, PyObject *v, long depth, Counts *counts)
{
    switch (f->kind) {
    case F_MESSAGE:
        return walk(fp, f->message, v, depth + 1, counts);
    case F_MESSAGES:
        if (!PyList_CheckExact(v))
            return 0;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(v); k++) {
            int r = walk(fp, f->message, PyList_GET_ITEM(v, k), depth + 2, counts);
            if (r != 1)
                return r;
        }
        return 1;
    case F_VALUES:
        if (!PyList_CheckExact(v))
            return 0;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(v); k++)
            if (PyList_GET_ITEM(v, k) == Py_None)
                return 0; /* an element of a repeated Value is never null */
        /* fall through */
    case F_VALUE:
        return value_in_rules(v, depth + 1, fp->max_depth, fp->max_items, fp->max_chars, &counts->members);
    case F_TIMESTAMP:
        if ((PyObject *)Py_TYPE(v) == datetime_type) {
            PyObject *text = canonical_time(v, counts);
            /* A new value of a present key: the iteration of the dict goes on. */
            int r = text == NULL ? -1 : PyDict_SetItem(d, key, text);
            Py_XDECREF(text);
            return r < 0 ? -1 : 1;
        }
        if (PyList_CheckExact(v)) {
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(v); k++) {
                PyObject *item = PyList_GET_ITEM(v, k);
                if ((PyObject *)Py_TYPE(item) != datetime_type)
                    return 0;
                PyObject *text = canonical_time(item, counts);
                if (text == NULL)
                    return -1;
                PyList_SET_ITEM(v, k, text);
                Py_DECREF(item);
            }
            return 1;
        }
        return 0; /* not what the types give */
    case F_BYTES: {
        PyObject *text;
        if (PyBytes_CheckExact(v))
            text = PyObject_CallOneArg(fp->b64, v);
        else if (PyList_CheckExact(v)) {
            const Py_ssize_t n = PyList_GET_SIZE(v);
            for (Py_ssize_t k = 0; k < n; k++)
                if (!PyBytes_CheckExact(PyList_GET_ITEM(v, k)))
                    return 0; /* not what the types give */
            text = PyList_New(n);
            for (Py_ssize_t k = 0; text != NULL && k < n; k++) {
                PyObject *item = PyObject_CallOneArg(fp->b64, PyList_GET_ITEM(v, k));
                if (item == NULL)
                    Py_CLEAR(text);
                else
                    PyList_SET_ITEM(text, k, item);
            }
        }
        else
            return 0;
        int r = text == NULL ? -1 : PyDict_SetItem(d, key, text);
        Py_XDECREF(text);
        return r < 0 ? -1 : 1;
    }
    case F_VECTOR: {
        if (!PyBytes_CheckExact(v))
            return 0;
        const Py_ssize_t len = PyBytes_GET_SIZE(v);
        if (len % 4 || len / 4 < f->least || len / 4 > f->most)
            return 0;
        /* Finite: no value whose exponent bits (in the top two bytes of
         * each little-endian binary32) are all set. The test runs over
         * every value without an early exit, a loop compilers vectorize. */
        const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(v);
        int not_finite = 0;
#if LITTLE_ENDIAN_WORDS
        for (Py_ssize_t i = 0; i < len; i += 4) {
            uint32_t bits;
            memcpy(&bits, b + i, 4);
            not_finite |= (bits & 0x7F800000u) == 0x7F800000u;
        }
#else
        for (Py_ssize_t i = 0; i < len; i += 4)
            not_finite |= (b[i + 3] & 0x7F) == 0x7F && (b[i + 2] & 0x80);
#endif
        if (not_finite)
            return 0;
        PyObject *values = PyObject_CallOneArg(fp->vector, v);
        int r = values == NULL ? -1 : PyDict_SetItem(d, key, values);
        Py_XDECREF(values);
        return r < 0 ? -1 : 1;
    }
    case F_JSON_VECTOR: {
        if (PyList_CheckExact(v)) {
            /* A vector the typed decoder read (too short for the scan), made
             * the bytes the helper takes where it is asked for. */
            if (fp->vector == Py_None)
                return 1;
            PyObject *raw = float32_le(NULL, v);
            if (raw == NULL || raw == Py_None) {
                Py_XDECREF(raw);
                return raw == NULL ? -1 : 0;
            }
            PyObject *values = PyObject_CallOneArg(fp->vector, raw);
            Py_DECREF(raw);
            const int r = values == NULL ? -1 : PyDict_SetItem(d, key, values);
            Py_XDECREF(values);
            return r < 0 ? -1 : 1;
        }
        if (!PyUnicode_CheckExact(v) || PyUnicode_GET_LENGTH(v) != 1
            || PyUnicode_READ_CHAR(v, 0) != VECTOR_PLACEHOLDER_CHAR || counts->taken >= counts->n_vectors)
            return 0;
        PyObject *values = counts->vectors[counts->taken++];
        const Py_ssize_t len = PyBytes_Check(values) ? PyBytes_GET_SIZE(values) / 4 : PyList_GET_SIZE(values);
        if (len < f->least || len > f->most)
            return 0;
        return PyDict_SetItem(d, key, values) < 0 ? -1 : 1;
    }
    }
    return 1;
}

/* The index of the field of a member name of a message, -1 for none, -2
 * on an error. */
static Py_ssize_t
field_of(Message *msg, PyObject *key)
{
    const size_t start = ((uintptr_t)key >> 4) & (KEY_CACHE - 1);
    CachedKey *free_slot = NULL;
    for (size_t probe = 0; probe < 4; probe++) {
        CachedKey *slot = &msg->cache[(start + probe) & (KEY_CACHE - 1)];
        if (slot->key == key)
            return slot->field;
        if (slot->key == NULL) {
            free_slot = slot;
            break;
        }
    }
    PyObject *index = PyDict_GetItemWithError(msg->fields, key);
    if (index == NULL && PyErr_Occurred())
        return -2;
    const Py_ssize_t field = index == NULL ? -1 : PyLong_AsSsize_t(index);
    if (free_slot != NULL) {
        /* Held, so that no other object takes its address. */
        free_slot->key = Py_NewRef(key);
        free_slot->field = field;
    }
    return field;
}

/* Walk a message at depth: 1 when it holds to the rules the types leave
 * out, 0 when it may not, -1 on an error. */
static int
walk(FastPath *fp, Py_ssize_t m, PyObject *d, long depth, Counts *counts)
{
    if (!PyDict_CheckExact(d))
        return 0;
    Message *msg = &fp->messages[m];
    counts->members += PyDict_GET_SIZE(d);
    /* Before the members' jobs, which change MessagePack values it reads;
     * in JSON after them, which put back the vectors the scan read. */
    if (msg->special != S_NONE && fp->msgpack) {
        int r = special_test(fp, msg, d);
        if (r != 1)
            return r;
    }
    if (Py_EnterRecursiveCall(" in the fast path"))
        return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *v;
    int r = 1;
    Py_ssize_t set[MAX_ONEOFS] = {0}; /* how many members of each oneof are set */
    while (r == 1 && PyDict_Next(d, &pos, &key, &v)) {
        const Py_ssize_t index = field_of(msg, key);
        if (index < 0) {
            if (index == -2)
                r = -1;
            continue;
        }
        const Field *f = &fp->fields[index];
        if (f->oneof >= 0)
            set[f->oneof]++;
        if (f->kind != F_NONE)
            r = member_job(fp, f, d, key, v, depth, counts);
    }
    Py_LeaveRecursiveCall();
    for (Py_ssize_t k = 0; r == 1 && k < msg->n_oneofs; k++)
        if (set[k] > 1 || (set[k] == 0 && msg->exactly[k]))
            r = 0;
    if (r == 1 && msg->special != S_NONE && !fp->msgpack)
        r = special_test(fp, msg, d);
    return r;
}

/* The binary64 value of a token the scan left to be read now (more than
 * 19 digits, or a case the fast algorithm cannot tell): 1, 0 where it is
 * beyond the float32 range, -1 on an error. */
static int
text_number(const JsonNumber *number, const unsigned char *p, double *out)
{
    char token[512];
    const Py_ssize_t length = number->u.text.length;
    if (length >= (Py_ssize_t)sizeof token)
        return 0;
    memcpy(token, p + number->u.text.start, (size_t)length);
    token[length] = '\0';
    const double d = PyOS_string_to_double(token, NULL, NULL);
    if (d == -1.0 && PyErr_Occurred())
        return -1;
    *out = d;
    return fabs(d) < FLOAT32_OVERFLOW;
}

/* The k-th vector the scan read into *out: a list of its numbers, or with
 * bytes_of (a callable of bytes, such as Float32Bytes) what it gives of
 * their little-endian binary32 bytes, each rounded to nearest. 1, 0 where
 * one of its tokens read now is beyond the float32 range, -1 on an error. */
static int
vector_list(const ReadVectors *rv, Py_ssize_t k, const unsigned char *p, PyObject *bytes_of, PyObject **out)
{
    const Py_ssize_t count = rv->spans[k].count;
    const JsonNumber *number = &rv->numbers[rv->spans[k].first];
    if (bytes_of != NULL) {
        PyObject *raw = PyBytes_FromStringAndSize(NULL, 4 * count);
        if (raw == NULL)
            return -1;
        unsigned char *b = (unsigned char *)PyBytes_AS_STRING(raw);
        for (Py_ssize_t j = 0; j < count; j++, number++, b += 4) {
            double d;
            if (number->kind == N_REAL)
                d = number->u.real;
            else if (number->kind == N_INTEGER)
                d = (double)number->u.integer;
            else {
                const int r = text_number(number, p, &d);
                if (r != 1) {
                    Py_DECREF(raw);
                    return r;
                }
            }
            store_float32_le(b, d);
        }
        *out = PyObject_CallOneArg(bytes_of, raw);
        Py_DECREF(raw);
        return *out == NULL ? -1 : 1;
    }
    PyObject *list = PyList_New(count);
    if (list == NULL)
        return -1;
    for (Py_ssize_t j = 0; j < count; j++, number++) {
        PyObject *item;
        if (number->kind == N_REAL)
            item = PyFloat_FromDouble(number->u.real);
        else if (number->kind == N_INTEGER)
            item = PyLong_FromLongLong(number->u.integer);
        else {
            double d;
            const int r = text_number(number, p, &d);
            if (r != 1) {
                Py_DECREF(list);
                return r;
            }
            item = PyFloat_FromDouble(d);
        }
        if (item == NULL) {
            Py_DECREF(list);
            return -1;
        }
        PyList_SET_ITEM(list, j, item);
    }
    *out = list;
    return 1;
}

/* The result of a step that failed: None (the walkers judge the document)
 * for an error of the fast path's own, else the error. */
static PyObject *
refused(FastPath *fp)
{
    if (PyErr_ExceptionMatches(fp->errors)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return NULL;
}

static PyObject *
fastpath_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FastPath *fp = (FastPath *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "a fast path takes one document");
        return NULL;
    }
    PyObject *data = args[0], *owned = NULL;
    if (!fp->msgpack && PyUnicode_CheckExact(data)) {
        /* A JSON text given as str: its UTF-8 bytes (none for a lone surrogate). */
        data = owned = PyUnicode_AsUTF8String(data);
        if (data == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
                return NULL;
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    else if (!PyBytes_CheckExact(data))
        Py_RETURN_NONE;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(data);
    const Py_ssize_t n = PyBytes_GET_SIZE(data);
    if (n > fp->max_document_bytes) {
        Py_XDECREF(owned);
        Py_RETURN_NONE;
    }
    long long members = 0, timestamps = 0;
    int clean = 0, sure;
    ReadVectors rv = {fp->names, fp->name_lengths, fp->n_names, READ_VECTOR_LEAST, fp->max_items, 0};
    PyThreadState *state = n >= LONG_DOCUMENT ? PyEval_SaveThread() : NULL;
    if (fp->msgpack)
        sure = msgpack_scan_bytes(p, n, &members, &timestamps, &clean);
    else
        sure = json_scan_bytes(p, n, &members, &clean, fp->n_names ? &rv : NULL);
    if (state != NULL)
        PyEval_RestoreThread(state);
    PyObject **vectors = NULL, *doc = NULL;
    Counts counts = {0, 0, vectors, 0, 0};
    if (!sure)
        goto unsure;
    PyObject *text = data;
    if (rv.n) {
        /* The vectors read, and the text with a placeholder for each. */
        vectors = counts.vectors = PyMem_Malloc((size_t)rv.n * sizeof(PyObject *));
        if (vectors == NULL) {
            PyErr_NoMemory();
            goto error;
        }
        Py_ssize_t length = n;
        for (Py_ssize_t k = 0; k < rv.n; k++) {
            int r = vector_list(&rv, k, p, fp->vector == Py_None ? NULL : fp->vector, &vectors[k]);
            if (r != 1) {
                if (r < 0)
                    goto error;
                goto unsure;
            }
            counts.n_vectors++;
            length -= rv.spans[k].end - rv.spans[k].start - (Py_ssize_t)(sizeof VECTOR_PLACEHOLDER_JSON - 1);
        }
        text = PyBytes_FromStringAndSize(NULL, length);
        if (text == NULL)
            goto error;
        char *out = PyBytes_AS_STRING(text);
        Py_ssize_t from = 0;
        for (Py_ssize_t k = 0; k < rv.n; k++) {
            memcpy(out, p + from, (size_t)(rv.spans[k].start - from));
            out += rv.spans[k].start - from;
            memcpy(out, VECTOR_PLACEHOLDER_JSON, sizeof VECTOR_PLACEHOLDER_JSON - 1);
            out += sizeof VECTOR_PLACEHOLDER_JSON - 1;
            from = rv.spans[k].end;
        }
        memcpy(out, p + from, (size_t)(n - from));
    }
    doc = PyObject_CallOneArg(clean ? fp->decode_clean : fp->decode, text);
    if (text != data)
        Py_DECREF(text);
    if (doc == NULL)
        goto error;
    int r = walk(fp, fp->top, doc, 1, &counts);
    if (r < 0)
        goto error;
    /* The decoder keeps the last of repeated members and passes over
     * unknown ones, which leaves fewer members than the bytes hold; in
     * MessagePack it also reads a timestamp from a string, which leaves
     * more datetimes; a vector put where no vector field is leaves a
     * placeholder not taken. */
    if (r == 1 && counts.members == members && counts.datetimes == timestamps && counts.taken == counts.n_vectors)
        goto done;
unsure:
    Py_CLEAR(doc);
    doc = Py_NewRef(Py_None);
    goto done;
error:
    Py_CLEAR(doc);
    doc = refused(fp);
done:
    for (Py_ssize_t k = 0; k < counts.n_vectors; k++)
        Py_DECREF(vectors[k]);
    PyMem_Free(vectors);
    PyMem_RawFree(rv.numbers);
    PyMem_RawFree(rv.spans);
    Py_XDECREF(owned);
    return doc;
}

static void
fastpath_dealloc(FastPath *fp)
{
    Py_XDECREF(fp->decode);
    Py_XDECREF(fp->decode_clean);
    Py_XDECREF(fp->errors);
    Py_XDECREF(fp->vector);
    Py_XDECREF(fp->b64);
    Py_XDECREF(fp->vector_names);
    PyMem_Free(fp->names);
    PyMem_Free(fp->name_lengths);
    if (fp->messages != NULL) {
        for (Py_ssize_t k = 0; k < fp->n_messages; k++) {
            Py_XDECREF(fp->messages[k].fields);
            for (Py_ssize_t j = 0; j < KEY_CACHE; j++)
                Py_XDECREF(fp->messages[k].cache[j].key);
            Py_XDECREF(fp->messages[k].names);
        }
        PyMem_Free(fp->messages);
    }
    PyMem_Free(fp->fields);
    Py_TYPE(fp)->tp_free((PyObject *)fp);
}

static int
table_error(const char *what)
{
    PyErr_Format(PyExc_ValueError, "a fast path table is malformed: %s", what);
    return -1;
}

/* Read the field and message tables into fp; -1 with an error when they
 * are malformed. */
static int
read_tables(FastPath *fp, PyObject *fields, PyObject *messages)
{
    fp->n_fields = PyList_GET_SIZE(fields);
    fp->fields = PyMem_Calloc(fp->n_fields ? fp->n_fields : 1, sizeof(Field));
    fp->n_messages = PyList_GET_SIZE(messages);
    fp->messages = PyMem_Calloc(fp->n_messages ? fp->n_messages : 1, sizeof(Message));
    if (fp->fields == NULL || fp->messages == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < fp->n_fields; k++) {
        Field *f = &fp->fields[k];
        if (!PyTuple_Check(PyList_GET_ITEM(fields, k)))
            return table_error("a field is not a tuple");
        if (!PyArg_ParseTuple(PyList_GET_ITEM(fields, k), "innni;a field is (kind, message, least, most, oneof)",
                              &f->kind, &f->message, &f->least, &f->most, &f->oneof))
            return -1;
        if (f->kind < F_NONE || f->kind > F_JSON_VECTOR)
            return table_error("a field of an unknown kind");
        if (f->oneof < -1 || f->oneof >= MAX_ONEOFS)
            return table_error("a field of a oneof beyond the table");
        if ((f->kind == F_MESSAGE || f->kind == F_MESSAGES) && (f->message < 0 || f->message >= fp->n_messages))
            return table_error("a field of a message beyond the table");
    }
    for (Py_ssize_t k = 0; k < fp->n_messages; k++) {
        Message *msg = &fp->messages[k];
        PyObject *fields_of, *oneofs, *names;
        const char *special;
        if (!PyTuple_Check(PyList_GET_ITEM(messages, k)))
            return table_error("a message is not a tuple");
        if (!PyArg_ParseTuple(PyList_GET_ITEM(messages, k), "O!O!zO!;a message is (fields, exactly, special, names)",
                              &PyDict_Type, &fields_of, &PyTuple_Type, &oneofs, &special, &PyTuple_Type, &names))
            return -1;
        Py_INCREF(fields_of);
        Py_INCREF(names);
        msg->fields = fields_of;
        msg->names = names;
        msg->n_oneofs = PyTuple_GET_SIZE(oneofs);
        if (msg->n_oneofs > MAX_ONEOFS)
            return table_error("a message of too many oneofs");
        for (Py_ssize_t j = 0; j < msg->n_oneofs; j++) {
            PyObject *exactly = PyTuple_GET_ITEM(oneofs, j);
            if (!PyBool_Check(exactly))
                return table_error("a oneof is not whether exactly one member is set");
            msg->exactly[j] = exactly == Py_True;
        }
        Py_ssize_t pos = 0;
        PyObject *key, *index;
        while (PyDict_Next(fields_of, &pos, &key, &index)) {
            if (!PyUnicode_CheckExact(key) || !PyLong_CheckExact(index))
                return table_error("a member name is not mapped to a field");
            const Py_ssize_t i = PyLong_AsSsize_t(index);
            if (i < 0 || i >= fp->n_fields) {
                PyErr_Clear();
                return table_error("a member of a field beyond the table");
            }
            if (fp->fields[i].oneof >= msg->n_oneofs)
                return table_error("a member of a oneof beyond its message's");
        }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(names); j++)
            if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(names, j)))
                return table_error("a name of a test is not a str");
        msg->special = S_NONE;
        if (special != NULL) {
            size_t t;
            for (t = 0; t < sizeof special_tests / sizeof special_tests[0]; t++)
                if (strcmp(special, special_tests[t].name) == 0)
                    break;
            if (t == sizeof special_tests / sizeof special_tests[0])
                return table_error("an unknown test");
            const Py_ssize_t want = special_tests[t].names;
            if (want >= 0 ? PyTuple_GET_SIZE(names) != want : PyTuple_GET_SIZE(names) == 0)
                return table_error("a test of the wrong number of members");
            msg->special = special_tests[t].code;
        }
    }
    return 0;
}

/* FastPath(msgpack, decode, decode_clean, errors, fields, messages, top,
 *          limits, helpers) */
static PyObject *
fastpath_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    int msgpack;
    PyObject *decode, *decode_clean, *errors, *fields, *messages, *helpers;
    Py_ssize_t top, max_document_bytes, max_items, max_chars;
    long max_depth;
    long long max_dimensions;
    static char *keywords[] = {"msgpack", "decode", "decode_clean", "errors", "fields", "messages", "top", "limits",
                               "helpers", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "pOOO!O!O!n(nlnnL)O!:FastPath", keywords, &msgpack, &decode,
                                     &decode_clean, &PyTuple_Type, &errors, &PyList_Type, &fields, &PyList_Type,
                                     &messages, &top, &max_document_bytes, &max_depth, &max_items, &max_chars,
                                     &max_dimensions, &PyTuple_Type, &helpers))
        return NULL;
    if (PyTuple_GET_SIZE(helpers) != 3 || !PyTuple_Check(PyTuple_GET_ITEM(helpers, 2))) {
        PyErr_SetString(PyExc_ValueError, "helpers are (vector, b64, vector_names)");
        return NULL;
    }
    FastPath *fp = (FastPath *)type->tp_alloc(type, 0);
    if (fp == NULL)
        return NULL;
    fp->vectorcall = fastpath_call;
    fp->msgpack = msgpack;
    fp->decode = Py_NewRef(decode);
    fp->decode_clean = Py_NewRef(decode_clean);
    fp->errors = Py_NewRef(errors);
    fp->vector = Py_NewRef(PyTuple_GET_ITEM(helpers, 0));
    fp->b64 = Py_NewRef(PyTuple_GET_ITEM(helpers, 1));
    /* The UTF-8 of each name lives as long as the name, which the tuple holds. */
    fp->vector_names = Py_NewRef(PyTuple_GET_ITEM(helpers, 2));
    fp->n_names = PyTuple_GET_SIZE(fp->vector_names);
    fp->names = PyMem_Calloc(fp->n_names ? fp->n_names : 1, sizeof(char *));
    fp->name_lengths = PyMem_Calloc(fp->n_names ? fp->n_names : 1, sizeof(Py_ssize_t));
    if (fp->names == NULL || fp->name_lengths == NULL) {
        Py_DECREF(fp);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < fp->n_names; k++) {
        PyObject *name = PyTuple_GET_ITEM(fp->vector_names, k);
        fp->names[k] = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, &fp->name_lengths[k]) : NULL;
        if (fp->names[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a vector name is not a str");
            Py_DECREF(fp);
            return NULL;
        }
    }
    fp->max_document_bytes = max_document_bytes;
    fp->max_depth = max_depth;
    fp->max_items = max_items;
    fp->max_chars = max_chars;
    fp->max_dimensions = max_dimensions;
    if (read_tables(fp, fields, messages) < 0) {
        Py_DECREF(fp);
        return NULL;
    }
    if (top < 0 || top >= fp->n_messages) {
        Py_DECREF(fp);
        PyErr_SetString(PyExc_ValueError, "the top message is beyond the table");
        return NULL;
    }
    fp->top = top;
    return (PyObject *)fp;
}

static PyMemberDef fastpath_members[] = {
    {"decode", T_OBJECT, offsetof(FastPath, decode), READONLY, "The typed decoder."},
    {"decode_clean", T_OBJECT, offsetof(FastPath, decode_clean), READONLY,
     "The typed decoder of documents none of whose strings holds a control character."},
    {NULL},
};

static PyTypeObject FastPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "memorywire._speedups.FastPath",
    .tp_doc = "The typed fast path of one message type in one encoding: fp(data) -> document | None.",
    .tp_basicsize = sizeof(FastPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = fastpath_new,
    .tp_dealloc = (destructor)fastpath_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastPath, vectorcall),
    .tp_members = fastpath_members,
};

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

/* The tables of a capsule and a message type index within them; -1 with an
 * error when either is not what it should be. */
static int
canon_table_of(PyObject *capsule, PyObject *number, CanonTables **t, Py_ssize_t *index)
{
    *t = PyCapsule_GetPointer(capsule, CANON_CAPSULE);
    if (*t == NULL)
        return -1;
    *index = PyLong_AsSsize_t(number);
    if (*index == -1 && PyErr_Occurred())
        return -1;
    if (*index < 0 || *index >= (*t)->n) {
        PyErr_SetString(PyExc_IndexError, "no such message type");
        return -1;
    }
    return 0;
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
    CanonTables *t;
    Py_ssize_t index;
    if (canon_table_of(args[0], args[1], &t, &index) < 0)
        return NULL;
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

/* The types of float32 vectors kept with their bytes (pb_tables sets them). */
static PyObject *pb_vector_type = NULL; /* memorywire._codec.Float32Values */
static PyObject *pb_bytes_type = NULL;  /* memorywire._codec.Float32Bytes */
static PyObject *pb_raw_name = NULL;    /* "raw" */

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

/* The seconds and nanoseconds since 1970-01-01T00:00:00Z of a timestamp of
 * the validator's form (YYYY-MM-DDTHH:MM:SS, a fraction of 1 to 9 digits,
 * Z), as memorywire._timestamp.parse reads it; -1 for any other text, which
 * the writers in Python then take. */
static int
timestamp_parts(PyObject *text, int64_t *seconds, int64_t *nanos)
{
    if (!PyUnicode_CheckExact(text) || !PyUnicode_IS_COMPACT_ASCII(text))
        return -1;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const Py_UCS1 *p = PyUnicode_1BYTE_DATA(text);
    if (n < 20 || n > 30 || n == 21 || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':'
        || p[16] != ':' || p[n - 1] != 'Z' || (n > 20 && p[19] != '.'))
        return -1;
    const int year = digits(p, 4), month = digits(p + 5, 2), day = digits(p + 8, 2);
    const int hour = digits(p + 11, 2), minute = digits(p + 14, 2), second = digits(p + 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0
        || minute > 59 || second < 0 || second > 59)
        return -1;
    *nanos = 0;
    if (n > 20) {
        const int k = (int)n - 21; /* digits of the fraction */
        const int fraction = digits(p + 20, k);
        if (fraction < 0)
            return -1;
        *nanos = fraction;
        for (int j = k; j < 9; j++)
            *nanos *= 10;
    }
    *seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    return 0;
}

/* A timestamp as its MessagePack extension; MP_UNSURE for text that is
 * not of the validator's form (timestamp_parts). */
static int
mp_timestamp_text(MpOut *out, PyObject *text)
{
    int64_t seconds, nanos;
    if (timestamp_parts(text, &seconds, &nanos) < 0)
        return MP_UNSURE;
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
                /* A Float32Bytes is its bytes, checked when it was made; a
                 * Float32Values keeps the bytes it was read from: its function gives them. */
                if ((PyObject *)Py_TYPE(x) == pb_bytes_type)
                    r = mp_bin(out, x);
                else if ((PyObject *)Py_TYPE(x) == pb_vector_type) {
                    PyObject *raw = PyObject_GetAttr(x, pb_raw_name);
                    if (raw != NULL && PyBytes_CheckExact(raw))
                        r = mp_bin(out, raw);
                    else {
                        PyErr_Clear();
                        r = mp_call(out, f->fn, x);
                    }
                    Py_XDECREF(raw);
                }
                else if (!PyList_CheckExact(x) || (r = mp_vector(out, x)) == MP_UNSURE)
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
    CanonTables *t;
    Py_ssize_t index;
    if (canon_table_of(args[0], args[1], &t, &index) < 0)
        return NULL;
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

/* -- Canonical Protobuf writer ---------------------------------------------
 *
 * pb_tables(tables, vector_type, bytes_type) takes the field tables of the message types
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

/* A google.protobuf.Timestamp of RFC 3339 text in UTC, as the validator
 * allows it (YYYY-MM-DDTHH:MM:SS, 1 to 9 digits of a fraction, Z). */
static int
pb_timestamp(pb_buf *b, const pb_field *f, PyObject *s)
{
    int64_t seconds, nanos;
    if (timestamp_parts(s, &seconds, &nanos) < 0)
        return -1;
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
        if ((PyObject *)Py_TYPE(v) == pb_bytes_type) {
            /* Its bytes, as they were read (and checked then). */
            const Py_ssize_t n = PyBytes_GET_SIZE(v);
            if (n == 0)
                return 0;
            if (pb_tag(b, f) < 0 || pb_varint(b, (uint64_t)n) < 0)
                return -1;
            return pb_put(b, PyBytes_AS_STRING(v), n);
        }
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

/* pb_tables(tables, vector_type, bytes_type): the field tables pb_write
 * writes by, one tuple per message type of (name, tag, kind, presence,
 * message, enum_map) tuples in field-number order (kind one of
 * pb_kind_names); the type of float32 vectors that keep the bytes they were
 * read from (in their attribute raw); and the type of float32 vectors held
 * as those bytes alone (a subclass of bytes). */
static PyObject *
pb_set_tables(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_Check(args[0]) || !PyType_Check(args[1]) || !PyType_Check(args[2])
        || !PyType_IsSubtype((PyTypeObject *)args[2], &PyBytes_Type)) {
        PyErr_SetString(PyExc_TypeError, "pb_tables takes a list of tables, a type and a subtype of bytes");
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
    Py_INCREF(args[2]);
    Py_XSETREF(pb_bytes_type, args[2]);
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

/* decimal_powers(table): set the powers of five of the Eisel-Lemire
 * algorithm, 16 bytes each (the high word first, both little-endian). */
static PyObject *
decimal_powers(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len != (Py_ssize_t)sizeof decimal_powers_) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "the table holds %zd bytes, not %zd", view.len,
                     (Py_ssize_t)sizeof decimal_powers_);
        return NULL;
    }
    const unsigned char *b = view.buf;
    for (size_t k = 0; k < sizeof decimal_powers_ / sizeof decimal_powers_[0]; k++) {
        uint64_t word = 0;
        for (int j = 7; j >= 0; j--)
            word = word << 8 | b[8 * k + (size_t)j];
        decimal_powers_[k] = word;
    }
    have_decimal_powers = 1;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* json_numbers(text) -> list | None: the numbers of a JSON array of
 * numbers as a float32 vector is read from the text, or None. */
static PyObject *
json_numbers(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *p = view.buf;
    ReadVectors rv = {NULL, NULL, 0, 1, PY_SSIZE_T_MAX, 0};
    PyObject *list = NULL;
    Py_ssize_t end = view.len > 0 && p[0] == '[' ? read_vector(&rv, p, 0, view.len) : -1;
    if (end == view.len) {
        const int r = vector_list(&rv, 0, p, NULL, &list);
        if (r == 0)
            list = Py_NewRef(Py_None);
    }
    else
        list = Py_NewRef(Py_None);
    PyMem_RawFree(rv.numbers);
    PyMem_RawFree(rv.spans);
    PyBuffer_Release(&view);
    return list;
}

/* Read a varint at *pos (before end): its value, or with *wide set, its low
 * 64 bits of one beyond 64 bits; -1 where it runs past end or past 10 bytes. */
static int
pb_read_varint(const unsigned char *data, Py_ssize_t *pos, Py_ssize_t end, uint64_t *value, int *wide)
{
    uint64_t result = 0;
    *wide = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= end)
            return -1;
        const unsigned char b = data[(*pos)++];
        if (shift < 64) {
            result |= (uint64_t)(b & 0x7F) << shift;
            if (shift > 57 && (b & 0x7F) >> (64 - shift))
                *wide = 1;
        }
        else if (b & 0x7F) {
            *wide = 1;
        }
        if (!(b & 0x80)) {
            *value = result;
            return 0;
        }
    }
    return -1;
}

/* pb_packed_field(data, number) -> bytes | None: the bytes of the first
 * length-delimited field ``number`` at the top level of a message's bytes,
 * or None where there is none or the bytes before it are not readable
 * (``_wire.packed_field``, whose results it gives for bytes and the field
 * numbers a message can declare, up to 2**29 - 1; None for a number past
 * 2**29, and OverflowError past a C long). */
static PyObject *
pb_packed_field(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "pb_packed_field(data: bytes, number: int)");
        return NULL;
    }
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    const Py_ssize_t end = PyBytes_GET_SIZE(args[0]);
    const long number = PyLong_AsLong(args[1]);
    if (number == -1 && PyErr_Occurred())
        return NULL;
    if (number < 0 || number > (1L << 29))
        Py_RETURN_NONE;
    const uint64_t wanted = ((uint64_t)number << 3) | 2;
    Py_ssize_t pos = 0;
    while (pos < end) {
        uint64_t key, length;
        int wide;
        if (pb_read_varint(data, &pos, end, &key, &wide) < 0)
            Py_RETURN_NONE;
        const unsigned wire = (unsigned)(key & 7);
        if (wire == 0) {
            if (pb_read_varint(data, &pos, end, &length, &wide) < 0)
                Py_RETURN_NONE;
        }
        else if (wire == 1 || wire == 5) {
            const Py_ssize_t size = wire == 1 ? 8 : 4;
            if (end - pos < size)
                Py_RETURN_NONE;
            pos += size;
        }
        else if (wire == 2) {
            const int is_wanted = !wide && key == wanted;
            if (pb_read_varint(data, &pos, end, &length, &wide) < 0 || wide || length > (uint64_t)(end - pos))
                Py_RETURN_NONE;
            if (is_wanted)
                return PyBytes_FromStringAndSize((const char *)data + pos, (Py_ssize_t)length);
            pos += (Py_ssize_t)length;
        }
        else {
            Py_RETURN_NONE;
        }
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------
 * The term columns of the SQLite store (service.store.Analyzer).
 *
 * term_columns(split, terms_of, digits) -> list | None: for each text, given
 * as the list of its whitespace-separated chunks, the number of its terms
 * and its distinct terms in code point order, each with its count, as
 * "\tterm:count" pieces followed by a tab; (0, None) for a text without a
 * term. terms_of maps each chunk to the tuple of its terms; a chunk missing
 * from it of 1 to digits ASCII digits is its own term. None, for the
 * Python path to decide, where another chunk is missing from terms_of, or where a
 * chunk or a term is not an exact str or a value not an exact tuple: the
 * order of exact strs is that of Python's sorted, and comparing them cannot
 * fail, which qsort's comparator needs. */

/* The order of two exact strs, as Python's < gives it. */
static int
name_order(PyObject *x, PyObject *y)
{
    if (x == y)
        return 0;
    if (PyUnicode_KIND(x) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(y) == PyUnicode_1BYTE_KIND) {
        Py_ssize_t nx = PyUnicode_GET_LENGTH(x), ny = PyUnicode_GET_LENGTH(y);
        int c = memcmp(PyUnicode_DATA(x), PyUnicode_DATA(y), (size_t)(nx < ny ? nx : ny));
        return c ? c : (nx > ny) - (nx < ny);
    }
    return PyUnicode_Compare(x, y);
}

static int
term_order(const void *a, const void *b)
{
    return name_order(*(PyObject *const *)a, *(PyObject *const *)b);
}

static int
same_term(PyObject *x, PyObject *y)
{
    return x == y || PyUnicode_Compare(x, y) == 0;
}

static Py_ssize_t
decimal_digits(Py_ssize_t n)
{
    Py_ssize_t digits = 1;
    for (; n >= 10; n /= 10)
        digits++;
    return digits;
}

/* The column of sorted terms (n > 0): new reference, or NULL with an exception. */
static PyObject *
term_column(PyObject **terms, Py_ssize_t n)
{
    Py_ssize_t length = 1;
    Py_UCS4 maxchar = 127;
    for (Py_ssize_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_term(terms[j], terms[i]); j++)
            ;
        length += 2 + PyUnicode_GET_LENGTH(terms[i]) + decimal_digits(j - i);
        const Py_UCS4 most = PyUnicode_MAX_CHAR_VALUE(terms[i]);
        if (most > maxchar)
            maxchar = most;
    }
    PyObject *out = PyUnicode_New(length, maxchar);
    if (out == NULL)
        return NULL;
    const int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_term(terms[j], terms[i]); j++)
            ;
        PyUnicode_WRITE(kind, data, pos, '\t');
        pos++;
        const Py_ssize_t size = PyUnicode_GET_LENGTH(terms[i]);
        if (PyUnicode_CopyCharacters(out, pos, terms[i], 0, size) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        pos += size;
        PyUnicode_WRITE(kind, data, pos, ':');
        pos++;
        Py_ssize_t count = j - i;
        const Py_ssize_t digits = decimal_digits(count);
        for (Py_ssize_t d = digits - 1; d >= 0; d--, count /= 10)
            PyUnicode_WRITE(kind, data, pos + d, (Py_UCS4)('0' + count % 10));
        pos += digits;
    }
    PyUnicode_WRITE(kind, data, pos, '\t');
    return out;
}

/* Whether a chunk is its own term: 1 to digits ASCII digits, which the
 * tokenizer reads as one token and no folding or stemming changes. */
static int
digit_chunk(PyObject *chunk, Py_ssize_t digits)
{
    const Py_ssize_t n = PyUnicode_GET_LENGTH(chunk);
    if (!PyUnicode_IS_ASCII(chunk) || n < 1 || n > digits)
        return 0;
    const Py_UCS1 *p = PyUnicode_1BYTE_DATA(chunk);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
    }
    return 1;
}

static PyObject *
term_columns(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "term_columns(split: list, terms_of: dict, digits: int)");
        return NULL;
    }
    PyObject *split = args[0], *terms_of = args[1];
    const Py_ssize_t digits = PyLong_AsSsize_t(args[2]);
    if (digits == -1 && PyErr_Occurred())
        return NULL;
    const Py_ssize_t texts = PyList_GET_SIZE(split);
    PyObject *out = PyList_New(texts);
    if (out == NULL)
        return NULL;
    PyObject **terms = NULL;
    Py_ssize_t room = 0;
    for (Py_ssize_t t = 0; t < texts; t++) {
        PyObject *chunks = PyList_GET_ITEM(split, t);
        if (!PyList_Check(chunks))
            goto fallback;
        Py_ssize_t n = 0;
        for (Py_ssize_t c = 0; c < PyList_GET_SIZE(chunks); c++) {
            PyObject *chunk = PyList_GET_ITEM(chunks, c);
            if (!PyUnicode_CheckExact(chunk))
                goto fallback;
            PyObject *found = PyDict_GetItemWithError(terms_of, chunk);
            PyObject **items;
            Py_ssize_t size;
            if (found == NULL) {
                if (PyErr_Occurred())
                    goto error;
                if (!digit_chunk(chunk, digits))
                    goto fallback;
                items = &chunk;
                size = 1;
            }
            else {
                if (!PyTuple_CheckExact(found))
                    goto fallback;
                items = ((PyTupleObject *)found)->ob_item;
                size = PyTuple_GET_SIZE(found);
            }
            if (n + size > room) {
                const Py_ssize_t wanted = (n + size) * 2 + 16;
                PyObject **grown = PyMem_Realloc(terms, (size_t)wanted * sizeof *terms);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto error;
                }
                terms = grown;
                room = wanted;
            }
            for (Py_ssize_t k = 0; k < size; k++) {
                PyObject *term = items[k];
                if (!PyUnicode_CheckExact(term))
                    goto fallback;
                terms[n++] = term;
            }
        }
        /* The terms are borrowed from terms_of's tuples, which nothing
         * here can change until they are written. */
        PyObject *item;
        if (n == 0) {
            item = Py_BuildValue("(iO)", 0, Py_None);
        }
        else {
            qsort(terms, (size_t)n, sizeof *terms, term_order);
            PyObject *column = term_column(terms, n);
            if (column == NULL)
                goto error;
            item = Py_BuildValue("(nN)", n, column);
        }
        if (item == NULL)
            goto error;
        PyList_SET_ITEM(out, t, item);
    }
    PyMem_Free(terms);
    return out;
fallback:
    PyMem_Free(terms);
    Py_DECREF(out);
    Py_RETURN_NONE;
error:
    PyMem_Free(terms);
    Py_DECREF(out);
    return NULL;
}

/* ------------------------------------------------------------------------
 * The canonical order of a record the service writes
 * (service.records.in_canonical_order).
 *
 * ordered_record(doc) -> dict | None: a new dict of doc's members in the order
 * of their names (code points), "embeddings" last (and left out when it is
 * None), with the members of its lifecycle, provenance and scope in that
 * order too when they have more than one. None, for the Python path to
 * decide, where doc or one of those three is not an exact dict, or a name
 * is not an exact str: the order of exact strs is that of Python's sorted,
 * and comparing them cannot fail. */

typedef struct {
    PyObject *name, *value;
} Member;

/* Whether an exact str is the interned ASCII name. */
static int
is_name(PyObject *x, PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    return x == name || (PyUnicode_GET_LENGTH(x) == n && PyUnicode_KIND(x) == PyUnicode_1BYTE_KIND &&
                         memcmp(PyUnicode_DATA(x), PyUnicode_DATA(name), (size_t)n) == 0);
}

/* The members of a dict in name order, into a new array (*out, to be freed
 * with PyMem_Free; borrowed references): their number, 0 with *out NULL for
 * the fallback, -1 with an exception. An insertion sort: the members of a
 * record the service writes are in order but for the few it added. */
static Py_ssize_t
sorted_members(PyObject *d, Member **out)
{
    *out = NULL;
    Py_ssize_t n = PyDict_GET_SIZE(d), pos = 0, i = 0;
    Member *members = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *members);
    if (members == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *name, *value;
    while (PyDict_Next(d, &pos, &name, &value)) {
        if (!PyUnicode_CheckExact(name)) {
            PyMem_Free(members);
            return 0;
        }
        Py_ssize_t j = i++;
        for (; j > 0 && name_order(members[j - 1].name, name) > 0; j--)
            members[j] = members[j - 1];
        members[j].name = name;
        members[j].value = value;
    }
    *out = members;
    return n;
}

/* A new dict of d's members in name order; NULL with no exception for the
 * fallback. */
static PyObject *
sorted_dict(PyObject *d)
{
    Member *members;
    Py_ssize_t n = sorted_members(d, &members);
    if (members == NULL)
        return NULL;
    PyObject *out = PyDict_New();
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        if (PyDict_SetItem(out, members[i].name, members[i].value) < 0)
            Py_CLEAR(out);
    }
    PyMem_Free(members);
    return out;
}

static PyObject *
ordered_record(PyObject *self, PyObject *doc)
{
    /* Interned once, for the life of the process. */
    static PyObject *embeddings_name, *nested[3];
    if (embeddings_name == NULL) {
        static const char *const names[] = {"lifecycle", "provenance", "scope"};
        for (size_t k = 0; k < 3; k++) {
            if (nested[k] == NULL && (nested[k] = PyUnicode_InternFromString(names[k])) == NULL)
                return NULL;
        }
        if ((embeddings_name = PyUnicode_InternFromString("embeddings")) == NULL)
            return NULL;
    }
    if (!PyDict_CheckExact(doc))
        Py_RETURN_NONE;
    Member *members;
    Py_ssize_t n = sorted_members(doc, &members);
    if (members == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *out = PyDict_New(), *embeddings = NULL;
    if (out == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = members[i].name, *value = members[i].value;
        if (is_name(name, embeddings_name)) {
            embeddings = value;
            continue;
        }
        if ((is_name(name, nested[0]) || is_name(name, nested[1]) || is_name(name, nested[2])) &&
            value != Py_None) {
            if (!PyDict_CheckExact(value))
                goto fallback;
            if (PyDict_GET_SIZE(value) > 1) {
                PyObject *sorted = sorted_dict(value);
                if (sorted == NULL) {
                    if (PyErr_Occurred())
                        goto error;
                    goto fallback;
                }
                int failed = PyDict_SetItem(out, name, sorted) < 0;
                Py_DECREF(sorted);
                if (failed)
                    goto error;
                continue;
            }
        }
        if (PyDict_SetItem(out, name, value) < 0)
            goto error;
    }
    if (embeddings != NULL && embeddings != Py_None && PyDict_SetItem(out, embeddings_name, embeddings) < 0)
        goto error;
    PyMem_Free(members);
    return out;
fallback:
    PyMem_Free(members);
    Py_DECREF(out);
    Py_RETURN_NONE;
error:
    PyMem_Free(members);
    Py_XDECREF(out);
    return NULL;
}

/* ------------------------------------------------------------------------
 * The stored row of a new record (service.store.record_row).
 *
 * record_row(doc, rid, tenant, seq, pos, words, terms, vector_type, dumps,
 * counted_dumps, namespace_key) -> (row, table, indexed) | None: the row of
 * ``records`` as WriteTx._RECORDS binds it (the document and the vectors as
 * bytearrays), the rows of ``embeddings`` and the entries of the vector
 * indexes. None, for the Python path to decide, wherever a value is not of
 * the type that path takes for granted (a record whose embeddings are not
 * all measured Vectors among them), so that the two read, convert and raise
 * alike: the only calls out are those the Python path makes, in its order. */

enum {
    RR_ID, RR_KIND, RR_KEY, RR_LIFECYCLE, RR_STATUS, RR_SCOPE, RR_ROUTING, RR_NAMESPACE, RR_EMBEDDINGS,
    RR_VALUES, RR_RAW, RR_NORM, RR_MODEL, RR_DIMENSIONS, RR_ACTIVE, RR_NO_NAMESPACE, RR_EMPTY, RR_NAMES
};
static PyObject *rr_names[RR_NAMES];
/* The scope's user .. project, then the routing's agent and caller_agent. */
static PyObject *rr_columns[8];

static int
rr_intern(void)
{
    static const char *const names[RR_NAMES] = {
        "id", "kind", "key", "lifecycle", "status", "scope", "routing", "namespace", "embeddings",
        "values", "raw", "norm", "model", "dimensions", "active", "[]", ""};
    static const char *const columns[8] = {
        "user", "agent", "session", "run", "task", "project", "agent", "caller_agent"};
    if (rr_names[RR_EMPTY] != NULL)
        return 0;
    for (int k = 0; k < 8; k++) {
        if (rr_columns[k] == NULL && (rr_columns[k] = PyUnicode_InternFromString(columns[k])) == NULL)
            return -1;
    }
    for (int k = 0; k < RR_NAMES; k++) {
        if (rr_names[k] == NULL && (rr_names[k] = PyUnicode_InternFromString(names[k])) == NULL)
            return -1;
    }
    return 0;
}

/* d[name], borrowed: 1 when there, 0 when absent (*out NULL), -1 with an
 * exception. */
static int
rr_get(PyObject *d, int name, PyObject **out)
{
    *out = PyDict_GetItemWithError(d, rr_names[name]);
    return *out != NULL ? 1 : (PyErr_Occurred() ? -1 : 0);
}

/* The exact dict at d[name], borrowed (*out NULL when absent): 1, 0 for
 * the fallback, -1 with an exception. */
static int
rr_dict(PyObject *d, int name, PyObject **out)
{
    int got = rr_get(d, name, out);
    if (got <= 0)
        return got < 0 ? -1 : 1;
    return PyDict_CheckExact(*out) ? 1 : 0;
}

/* The value of an attribute of a Vector, new, of the exact type; NULL with
 * no exception for the fallback (which reads it again, and raises what
 * reading it raises). */
static PyObject *
rr_attr(PyObject *obj, int name, PyTypeObject *type)
{
    PyObject *v = PyObject_GetAttr(obj, rr_names[name]);
    if (v == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (Py_TYPE(v) != type) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* Append the row of ``embeddings`` and the vector-index entry of an
 * embedding e of a positive norm, whose values start at byte ``at`` of the
 * record's vectors: 1, 0 for the fallback, -1 with an exception. */
static int
rr_entry(PyObject *e, PyObject *raw, PyObject *norm, PyObject *rid, PyObject *tenant, Py_ssize_t at,
         PyObject *table, PyObject *indexed)
{
    PyObject *model, *dims;
    int got;
    if ((got = rr_get(e, RR_MODEL, &model)) <= 0 || (got = rr_get(e, RR_DIMENSIONS, &dims)) < 0)
        return got;
    if (got && !PyLong_CheckExact(dims))
        return 0;
    dims = got ? Py_NewRef(dims) : PyLong_FromSsize_t(PyBytes_GET_SIZE(raw) / 4);
    PyObject *offset = dims != NULL ? PyLong_FromSsize_t(at) : NULL;
    PyObject *t_row = offset != NULL ? PyTuple_Pack(6, rid, tenant, model, dims, offset, norm) : NULL;
    PyObject *entry = t_row != NULL ? PyTuple_Pack(4, model, dims, raw, norm) : NULL;
    int ok = entry != NULL && PyList_Append(table, t_row) == 0 && PyList_Append(indexed, entry) == 0;
    Py_XDECREF(dims);
    Py_XDECREF(offset);
    Py_XDECREF(t_row);
    Py_XDECREF(entry);
    return ok ? 1 : -1;
}

static PyObject *
record_row(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "record_row takes 11 arguments");
        return NULL;
    }
    PyObject *doc = args[0], *rid = args[1], *tenant = args[2], *seq = args[3], *pos = args[4];
    PyObject *words = args[5], *terms = args[6], *vector_type = args[7], *dumps = args[8];
    PyObject *counted_dumps = args[9], *namespace_key = args[10];
    if (rr_intern() < 0)
        return NULL;
    if (!PyDict_CheckExact(doc))
        Py_RETURN_NONE;
    PyObject *row = NULL, *table = NULL, *indexed = NULL, *data = NULL, *ns = NULL;
    PyObject *raws = NULL, *out = NULL;
    PyObject *id, *kind, *key, *life, *status, *scope, *routing, *embeddings;
    int got;

    /* The checks first: the fallback must come before any call out. */
    if ((got = rr_get(doc, RR_ID, &id)) <= 0 || (got = rr_get(doc, RR_KIND, &kind)) <= 0)
        goto fallback_or_error;
    if ((got = rr_get(doc, RR_LIFECYCLE, &life)) < 0)
        goto done;
    status = rr_names[RR_ACTIVE];
    if (life != NULL && life != Py_None) {
        if (!PyDict_CheckExact(life))
            goto fallback;
        if ((got = rr_get(life, RR_STATUS, &status)) < 0)
            goto done;
        if (got == 0)
            status = rr_names[RR_ACTIVE];
        else if (!PyUnicode_CheckExact(status))
            goto fallback;
    }
    if ((got = rr_get(doc, RR_KEY, &key)) < 0)
        goto done;
    if (got == 0 || key == Py_None || (PyUnicode_CheckExact(key) && PyUnicode_GET_LENGTH(key) == 0))
        key = rr_names[RR_EMPTY];
    else if (!PyUnicode_CheckExact(key))
        goto fallback;
    if ((got = rr_dict(doc, RR_SCOPE, &scope)) <= 0 || (got = rr_dict(doc, RR_ROUTING, &routing)) <= 0)
        goto fallback_or_error;

    /* The embeddings, each a measured Vector of exact bytes. */
    if ((got = rr_get(doc, RR_EMBEDDINGS, &embeddings)) < 0)
        goto done;
    Py_ssize_t n = 0, total = 0;
    if (got) {
        if (!PyList_CheckExact(embeddings))
            goto fallback;
        n = PyList_GET_SIZE(embeddings);
    }
    if ((table = PyList_New(0)) == NULL || (indexed = PyList_New(0)) == NULL)
        goto done;
    if (n > 0 && (raws = PyList_New(n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(embeddings, i), *values, *raw, *norm;
        if (!PyDict_CheckExact(e))
            goto fallback;
        if ((got = rr_get(e, RR_VALUES, &values)) <= 0 || (PyObject *)Py_TYPE(values) != vector_type)
            goto fallback_or_error;
        if ((raw = rr_attr(values, RR_RAW, &PyBytes_Type)) == NULL)
            goto fallback_or_error;
        PyList_SET_ITEM(raws, i, raw);
        if ((norm = rr_attr(values, RR_NORM, &PyFloat_Type)) == NULL)
            goto fallback_or_error;
        got = PyFloat_AS_DOUBLE(norm) > 0.0 ? rr_entry(e, raw, norm, rid, tenant, total, table, indexed) : 1;
        Py_DECREF(norm);
        if (got <= 0)
            goto fallback_or_error;
        total += PyBytes_GET_SIZE(raw);
    }

    /* The calls out, in the order of the Python path: the document, then
     * the namespace. */
    data = PyObject_CallOneArg(n > 0 ? counted_dumps : dumps, doc);
    if (data == NULL)
        goto done;
    if (!PyBytes_CheckExact(data))
        goto fallback;
    PyObject *namespace = NULL;
    if (scope != NULL && (got = rr_get(scope, RR_NAMESPACE, &namespace)) < 0)
        goto done;
    int truthy = namespace == NULL ? 0 : PyObject_IsTrue(namespace);
    if (truthy < 0)
        goto done;
    if (truthy) {
        if ((ns = PyObject_CallOneArg(namespace_key, namespace)) == NULL)
            goto done;
    } else {
        ns = Py_NewRef(rr_names[RR_NO_NAMESPACE]);
    }

    /* The rows. */
    if ((row = PyTuple_New(21)) == NULL)
        goto done;
    PyObject *columns[8];
    for (int k = 0; k < 8; k++) {
        PyObject *d = k < 6 ? scope : routing, *v = NULL;
        if (d != NULL && (v = PyDict_GetItemWithError(d, rr_columns[k])) == NULL && PyErr_Occurred())
            goto done;
        columns[k] = v != NULL ? v : rr_names[RR_EMPTY];
    }
    PyObject *doc_bytes = PyByteArray_FromStringAndSize(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data));
    if (doc_bytes == NULL)
        goto done;
    PyObject *vecs = Py_None;
    if (n > 0) {
        if ((vecs = PyByteArray_FromStringAndSize(NULL, total)) == NULL) {
            Py_DECREF(doc_bytes);
            goto done;
        }
        char *p = PyByteArray_AS_STRING(vecs);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *raw = PyList_GET_ITEM(raws, i);
            memcpy(p, PyBytes_AS_STRING(raw), (size_t)PyBytes_GET_SIZE(raw));
            p += PyBytes_GET_SIZE(raw);
        }
    } else {
        Py_INCREF(vecs);
    }
    PyObject *items[21] = {
        rid, tenant, id, seq, kind, status, key, ns, columns[0], columns[1], columns[2], columns[3],
        columns[4], columns[5], columns[6], columns[7], pos, words, terms == Py_None ? rr_names[RR_EMPTY] : terms,
        NULL, NULL};
    for (int k = 0; k < 19; k++)
        PyTuple_SET_ITEM(row, k, Py_NewRef(items[k]));
    PyTuple_SET_ITEM(row, 19, doc_bytes);
    PyTuple_SET_ITEM(row, 20, vecs);

    out = PyTuple_Pack(3, row, table, indexed);
    goto done;

fallback_or_error:
    if (PyErr_Occurred())
        goto done;
fallback:
    out = Py_NewRef(Py_None);
done:
    Py_XDECREF(row);
    Py_XDECREF(table);
    Py_XDECREF(indexed);
    Py_XDECREF(data);
    Py_XDECREF(ns);
    Py_XDECREF(raws);
    return out;
}

/* ------------------------------------------------------------------------
 * The compiled Protobuf reader (memorywire._wire.compiled_reader).
 *
 * pb_reader_tables(messages) -> capsule: the field tables of the messages a
 * type reaches, each a tuple of fields (number, name, kind, repeated,
 * is_map, presence, oneof, sub, wide, enum) in field-number order: kind one
 * of the PR_ kinds below, in the order of memorywire._model's; a map field
 * repeated (an entry an occurrence); oneof the index of the field's oneof
 * (-1 for none); sub the index of a MESSAGE field's message; wide whether an
 * UINT field has 64 bits; enum a tuple of (number, name) for an ENUM field.
 *
 * pb_read(tables, data, root, max_depth, make_vector, timestamp, b64) ->
 * dict | None: the JSON form of a message's bytes as _codec.from_proto gives
 * it of the message upb parses from them (members in field-number order,
 * fields at their default left out), or None wherever anything is not what
 * a writer of memorywire.v1 writes in one way only: an unknown field, a
 * field out of field-number order or repeated where it is not repeated, two
 * members of a oneof, a wire type or a value the field does not take, an
 * unknown enum value, a non-finite number, text that is not UTF-8, a map key
 * twice, nesting beyond max_depth (or upb's 100). The caller then takes
 * the path of upb,
 * which names the fault or reads what was merged. make_vector(raw) gives the
 * form of a float32 vector's finite little-endian bytes, timestamp(seconds,
 * nanos) a timestamp's text (None out of range), b64(bytes) their text. */

/* The depth of nesting upb reads. */
#define PR_MAX_DEPTH 100

enum { PR_STRING, PR_BOOL, PR_UINT, PR_DOUBLE, PR_FLOAT32, PR_BYTES, PR_ENUM, PR_MESSAGE, PR_TIMESTAMP,
       PR_VALUE, PR_KINDS };

typedef struct {
    uint32_t number;
    PyObject *name;
    int kind, repeated, is_map, presence, oneof, sub, wide;
    Py_ssize_t n_enum;
    int32_t *enum_numbers;
    PyObject **enum_names;
} pr_field;

typedef struct {
    Py_ssize_t n_fields;
    pr_field *fields;
    uint32_t max_number;
    int32_t *by_number;
} pr_message;

typedef struct {
    Py_ssize_t n_messages;
    pr_message *messages;
} pr_tables;

typedef struct {
    pr_tables *t;
    int max_depth;
    PyObject *make_vector, *timestamp, *b64;
} pr_reader;

static void
pr_free(pr_tables *t)
{
    if (t == NULL)
        return;
    for (Py_ssize_t i = 0; i < t->n_messages; i++) {
        pr_message *msg = &t->messages[i];
        for (Py_ssize_t k = 0; msg->fields != NULL && k < msg->n_fields; k++) {
            pr_field *f = &msg->fields[k];
            Py_XDECREF(f->name);
            for (Py_ssize_t e = 0; f->enum_names != NULL && e < f->n_enum; e++)
                Py_XDECREF(f->enum_names[e]);
            PyMem_Free(f->enum_numbers);
            PyMem_Free(f->enum_names);
        }
        PyMem_Free(msg->fields);
        PyMem_Free(msg->by_number);
    }
    PyMem_Free(t->messages);
    PyMem_Free(t);
}

static void
pr_capsule_free(PyObject *capsule)
{
    pr_free((pr_tables *)PyCapsule_GetPointer(capsule, "memorywire.pb_reader_tables"));
}

static int
pr_field_of(PyObject *spec, pr_field *f, Py_ssize_t n_messages)
{
    long number, kind;
    PyObject *name, *entries;
    if (!PyArg_ParseTuple(spec, "lUliiiiiiO!", &number, &name, &kind, &f->repeated, &f->is_map, &f->presence,
                          &f->oneof, &f->sub, &f->wide, &PyTuple_Type, &entries))
        return -1;
    if (number <= 0 || number > (1L << 29) - 1 || kind < 0 || kind >= PR_KINDS || f->oneof < -1 || f->oneof >= 64
        || (kind == PR_MESSAGE && (f->sub < 0 || f->sub >= n_messages))) {
        PyErr_SetString(PyExc_ValueError, "pb_reader_tables: a field out of range");
        return -1;
    }
    f->number = (uint32_t)number;
    f->kind = (int)kind;
    f->name = PyUnicode_InternFromString(PyUnicode_AsUTF8(name));
    if (f->name == NULL)
        return -1;
    f->n_enum = PyTuple_GET_SIZE(entries);
    if (f->n_enum > 0) {
        f->enum_numbers = PyMem_Calloc((size_t)f->n_enum, sizeof(int32_t));
        f->enum_names = PyMem_Calloc((size_t)f->n_enum, sizeof(PyObject *));
        if (f->enum_numbers == NULL || f->enum_names == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t e = 0; e < f->n_enum; e++) {
            int value;
            PyObject *label;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(entries, e), "iU", &value, &label))
                return -1;
            f->enum_numbers[e] = value;
            f->enum_names[e] = Py_NewRef(label);
        }
    }
    return 0;
}

static PyObject *
pb_reader_tables(PyObject *self, PyObject *messages)
{
    if (!PyTuple_Check(messages)) {
        PyErr_SetString(PyExc_TypeError, "pb_reader_tables(messages: tuple)");
        return NULL;
    }
    pr_tables *t = PyMem_Calloc(1, sizeof(pr_tables));
    if (t == NULL)
        return PyErr_NoMemory();
    t->n_messages = PyTuple_GET_SIZE(messages);
    if ((t->messages = PyMem_Calloc((size_t)t->n_messages + 1, sizeof(pr_message))) == NULL) {
        PyMem_Free(t);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < t->n_messages; i++) {
        PyObject *fields = PyTuple_GET_ITEM(messages, i);
        pr_message *msg = &t->messages[i];
        if (!PyTuple_Check(fields)) {
            PyErr_SetString(PyExc_TypeError, "pb_reader_tables: a message is a tuple of fields");
            goto fail;
        }
        msg->n_fields = PyTuple_GET_SIZE(fields);
        if ((msg->fields = PyMem_Calloc((size_t)msg->n_fields + 1, sizeof(pr_field))) == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t k = 0; k < msg->n_fields; k++) {
            pr_field *f = &msg->fields[k];
            if (!PyTuple_Check(PyTuple_GET_ITEM(fields, k))
                || pr_field_of(PyTuple_GET_ITEM(fields, k), f, t->n_messages) < 0)
                goto fail;
            if (k > 0 && f->number <= msg->fields[k - 1].number) {
                PyErr_SetString(PyExc_ValueError, "pb_reader_tables: field numbers ascend");
                goto fail;
            }
            msg->max_number = f->number;
        }
        if (msg->max_number > 4096) {
            PyErr_SetString(PyExc_ValueError, "pb_reader_tables: field numbers up to 4096");
            goto fail;
        }
        if ((msg->by_number = PyMem_Calloc((size_t)msg->max_number + 1, sizeof(int32_t))) == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (uint32_t n = 0; n <= msg->max_number; n++)
            msg->by_number[n] = -1;
        for (Py_ssize_t k = 0; k < msg->n_fields; k++)
            msg->by_number[msg->fields[k].number] = (int32_t)k;
    }
    PyObject *capsule = PyCapsule_New(t, "memorywire.pb_reader_tables", pr_capsule_free);
    if (capsule == NULL)
        goto fail;
    return capsule;
fail:
    pr_free(t);
    return NULL;
}

/* A varint of at most 64 bits before end: 1, or 0 for the fallback. */
static int
pr_varint(const unsigned char *data, Py_ssize_t *pos, Py_ssize_t end, uint64_t *value)
{
    int wide;
    return pb_read_varint(data, pos, end, value, &wide) == 0 && !wide;
}

/* The bounds of a length-delimited field: 1, or 0 for the fallback. */
static int
pr_span(const unsigned char *data, Py_ssize_t *pos, Py_ssize_t end, Py_ssize_t *start, Py_ssize_t *stop)
{
    uint64_t length;
    if (!pr_varint(data, pos, end, &length) || length > (uint64_t)(end - *pos))
        return 0;
    *start = *pos;
    *stop = *pos + (Py_ssize_t)length;
    *pos = *stop;
    return 1;
}

static double
pr_double(const unsigned char *p, uint64_t *bits)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    double d;
    memcpy(&d, &v, sizeof d);
    *bits = v;
    return d;
}

/* Text of strict UTF-8; NULL with no exception for the fallback. */
static PyObject *
pr_text(const unsigned char *data, Py_ssize_t start, Py_ssize_t stop)
{
    PyObject *text = PyUnicode_DecodeUTF8((const char *)data + start, stop - start, NULL);
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
        PyErr_Clear();
    return text;
}

/* *out (new) from a Python result: 1, or -1 with its exception; None from a
 * helper that gives None for the fallback is 0. */
static int
pr_result(PyObject *v, PyObject **out)
{
    if (v == NULL)
        return -1;
    if (v == Py_None) {
        Py_DECREF(v);
        return 0;
    }
    *out = v;
    return 1;
}

static int pr_value(pr_reader *r, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end, int depth,
                    PyObject **out);

/* A map entry (key = 1, value = 2, a Value) into entries: 1, 0, -1. */
static int
pr_entry(pr_reader *r, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end, PyObject *entries, int depth)
{
    Py_ssize_t key_at = -1, key_end = -1, value_at = -1, value_end = -1;
    while (pos < end) {
        uint64_t tag;
        if (!pr_varint(data, &pos, end, &tag))
            return 0;
        if (tag == (1 << 3 | 2) && key_at < 0) {
            if (!pr_span(data, &pos, end, &key_at, &key_end))
                return 0;
        }
        else if (tag == (2 << 3 | 2) && value_at < 0) {
            if (!pr_span(data, &pos, end, &value_at, &value_end))
                return 0;
        }
        else {
            return 0;
        }
    }
    if (value_at < 0)
        return 0;
    PyObject *key = key_at < 0 ? PyUnicode_New(0, 0) : pr_text(data, key_at, key_end);
    if (key == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int got = PyDict_Contains(entries, key);
    PyObject *value = NULL;
    if (got == 0)
        got = pr_value(r, data, value_at, value_end, depth + 1, &value);
    else
        got = got > 0 ? 0 : -1;
    if (got > 0 && PyDict_SetItem(entries, key, value) < 0)
        got = -1;
    Py_DECREF(key);
    Py_XDECREF(value);
    return got;
}

/* A ValueList (values = 1) or a ValueMap (entries = 1): 1, 0, -1. */
static int
pr_container(pr_reader *r, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end, int depth, int is_map,
             PyObject **out)
{
    if (depth > r->max_depth)
        return 0;
    PyObject *container = is_map ? PyDict_New() : PyList_New(0);
    if (container == NULL)
        return -1;
    int got = 1;
    while (got > 0 && pos < end) {
        uint64_t tag;
        Py_ssize_t start, stop;
        if (!pr_varint(data, &pos, end, &tag) || tag != (1 << 3 | 2) || !pr_span(data, &pos, end, &start, &stop)) {
            got = 0;
        }
        else if (is_map) {
            got = pr_entry(r, data, start, stop, container, depth);
        }
        else {
            PyObject *item = NULL;
            got = pr_value(r, data, start, stop, depth + 1, &item);
            if (got > 0) {
                got = PyList_Append(container, item) < 0 ? -1 : 1;
                Py_DECREF(item);
            }
        }
    }
    if (got <= 0) {
        Py_DECREF(container);
        return got;
    }
    *out = container;
    return 1;
}

/* A Value, one of its kinds set once: 1, 0, -1. */
static int
pr_value(pr_reader *r, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end, int depth, PyObject **out)
{
    if (depth > r->max_depth || pos >= end)
        return 0;
    uint64_t tag, v, bits;
    Py_ssize_t start, stop;
    if (!pr_varint(data, &pos, end, &tag))
        return 0;
    int got = 1;
    switch (tag) {
    case 1 << 3:  /* null_value, of the one value NULL_VALUE */
        if (!pr_varint(data, &pos, end, &v) || v != 0)
            return 0;
        *out = Py_NewRef(Py_None);
        break;
    case 2 << 3:
        if (!pr_varint(data, &pos, end, &v))
            return 0;
        *out = PyBool_FromLong(v != 0);
        break;
    case 3 << 3:  /* sint64 */
        if (!pr_varint(data, &pos, end, &v))
            return 0;
        *out = PyLong_FromLongLong((long long)(v >> 1) ^ -(long long)(v & 1));
        if (*out == NULL)
            return -1;
        break;
    case 4 << 3 | 1: {
        if (end - pos < 8)
            return 0;
        double d = pr_double(data + pos, &bits);
        pos += 8;
        if (!isfinite(d))
            return 0;
        if ((*out = PyFloat_FromDouble(d)) == NULL)
            return -1;
        break;
    }
    case 5 << 3 | 2:
        if (!pr_span(data, &pos, end, &start, &stop))
            return 0;
        if ((*out = pr_text(data, start, stop)) == NULL)
            return PyErr_Occurred() ? -1 : 0;
        break;
    case 6 << 3 | 2:
    case 7 << 3 | 2:
        if (!pr_span(data, &pos, end, &start, &stop))
            return 0;
        got = pr_container(r, data, start, stop, depth + 1, tag == (7 << 3 | 2), out);
        break;
    default:
        return 0;
    }
    if (got > 0 && pos != end) {  /* a second field: upb merges or replaces */
        Py_DECREF(*out);
        *out = NULL;
        return 0;
    }
    return got;
}

/* A Timestamp (seconds = 1, nanos = 2, each at most once): 1, 0, -1. */
static int
pr_timestamp(pr_reader *r, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end, PyObject **out)
{
    uint64_t seconds = 0, nanos = 0, tag;
    int seen = 0;
    while (pos < end) {
        if (!pr_varint(data, &pos, end, &tag) || (tag != 1 << 3 && tag != 2 << 3) || seen & (int)(tag >> 3))
            return 0;
        seen |= (int)(tag >> 3);
        if (!pr_varint(data, &pos, end, tag == 1 << 3 ? &seconds : &nanos))
            return 0;
    }
    if (nanos > 0x7FFFFFFF)
        return 0;
    return pr_result(PyObject_CallFunction(r->timestamp, "Lk", (long long)seconds, (unsigned long)nanos), out);
}

static int pr_message_of(pr_reader *r, const pr_message *msg, const unsigned char *data, Py_ssize_t pos,
                         Py_ssize_t end, int depth, PyObject **out);

/* A float32 vector's packed bytes, each value finite: 1, 0, -1. */
static int
pr_vector(pr_reader *r, const unsigned char *data, Py_ssize_t start, Py_ssize_t stop, PyObject **out)
{
    if ((stop - start) % 4)
        return 0;
    for (Py_ssize_t i = start + 3; i < stop; i += 4) {
        if ((data[i] & 0x7F) == 0x7F && (data[i - 1] & 0x80))
            return 0;
    }
    PyObject *raw = PyBytes_FromStringAndSize((const char *)data + start, stop - start);
    if (raw == NULL)
        return -1;
    int got = pr_result(PyObject_CallOneArg(r->make_vector, raw), out);
    Py_DECREF(raw);
    return got;
}

/* The value of a varint field: 1, 0 (also for a default left out: *out
 * NULL), -1. */
static int
pr_scalar(const pr_field *f, uint64_t v, PyObject **out)
{
    *out = NULL;
    if (f->kind == PR_BOOL) {
        if (v != 0 || f->presence || f->repeated)
            *out = PyBool_FromLong(v != 0);
        return 1;
    }
    if (f->kind == PR_UINT) {
        if (!f->wide)
            v &= 0xFFFFFFFFu;
        if (v == 0 && !f->presence && !f->repeated)
            return 1;
        return (*out = PyLong_FromUnsignedLongLong(v)) != NULL ? 1 : -1;
    }
    if (f->kind != PR_ENUM)
        return 0;
    int32_t number = (int32_t)(uint32_t)v;
    if (number == 0 && !f->presence && !f->repeated)
        return 1;
    for (Py_ssize_t e = 0; e < f->n_enum; e++) {
        if (f->enum_numbers[e] == number) {
            *out = Py_NewRef(f->enum_names[e]);
            return 1;
        }
    }
    return 0;
}

/* The value of a length-delimited field that is not a vector or a map
 * (string, bytes, message, timestamp, Value): 1, 0 (also for a default
 * left out: *out NULL), -1. */
static int
pr_delimited(pr_reader *r, const pr_field *f, const unsigned char *data, Py_ssize_t start, Py_ssize_t stop,
             int depth, PyObject **out)
{
    *out = NULL;
    switch (f->kind) {
    case PR_STRING:
    case PR_BYTES:
        if (start == stop && !f->presence && !f->repeated)
            return 1;
        if (f->kind == PR_BYTES) {
            PyObject *raw = PyBytes_FromStringAndSize((const char *)data + start, stop - start);
            if (raw == NULL)
                return -1;
            *out = PyObject_CallOneArg(r->b64, raw);
            Py_DECREF(raw);
            return *out != NULL ? 1 : -1;
        }
        *out = pr_text(data, start, stop);
        return *out != NULL ? 1 : (PyErr_Occurred() ? -1 : 0);
    case PR_MESSAGE:
        return pr_message_of(r, &r->t->messages[f->sub], data, start, stop, depth + 1, out);
    case PR_TIMESTAMP:
        return pr_timestamp(r, data, start, stop, out);
    case PR_VALUE:
        return f->repeated ? 0 : pr_value(r, data, start, stop, depth + 1, out);
    default:
        return 0;
    }
}

/* The list (or, for a map, dict) of a repeated run at its first item, put
 * into out under the field's name; borrowed, NULL with an exception. */
static PyObject *
pr_run(PyObject *out, const pr_field *f)
{
    PyObject *run = f->is_map ? PyDict_New() : PyList_New(0);
    if (run == NULL)
        return NULL;
    int failed = PyDict_SetItem(out, f->name, run) < 0;
    Py_DECREF(run);
    return failed ? NULL : run;
}

/* One occurrence of a field at data[*pos] (after its tag) into out, whose
 * repeated run so far is *run (borrowed; NULL at its start): 1, 0, -1. */
static int
pr_field_into(pr_reader *r, const pr_field *f, int wire, const unsigned char *data, Py_ssize_t *pos,
              Py_ssize_t end, int depth, PyObject *out, PyObject **run)
{
    Py_ssize_t start, stop;
    PyObject *v = NULL;
    int got;
    if (f->is_map || f->kind == PR_FLOAT32) {
        if (wire != 2 || !f->repeated || !pr_span(data, pos, end, &start, &stop))
            return 0;
        if (f->kind == PR_FLOAT32) {  /* packed, once: upb writes it so */
            if (*run != NULL)
                return 0;
            *run = Py_None;
            if (start == stop)
                return 1;
            if ((got = pr_vector(r, data, start, stop, &v)) <= 0)
                return got;
            got = PyDict_SetItem(out, f->name, v) < 0 ? -1 : 1;
            Py_DECREF(v);
            return got;
        }
        if (*run == NULL && (*run = pr_run(out, f)) == NULL)
            return -1;
        return pr_entry(r, data, start, stop, *run, depth + 1);
    }
    const int varint = f->kind == PR_BOOL || f->kind == PR_UINT || f->kind == PR_ENUM;
    if (f->kind == PR_DOUBLE) {
        if (f->repeated || wire != 1 || end - *pos < 8)
            return 0;
        uint64_t bits;
        double d = pr_double(data + *pos, &bits);
        *pos += 8;
        if (!isfinite(d))
            return 0;
        if (bits == 0 && !f->presence)
            return 1;
        if ((v = PyFloat_FromDouble(d)) == NULL)
            return -1;
        got = 1;
    }
    else if (varint && wire == 0) {
        uint64_t raw;
        if (!pr_varint(data, pos, end, &raw))
            return 0;
        got = pr_scalar(f, raw, &v);
    }
    else if (varint && wire == 2 && f->repeated) {  /* packed */
        if (!pr_span(data, pos, end, &start, &stop))
            return 0;
        if (start == stop)  /* an empty run: upb leaves the field out */
            return 1;
        if (*run == NULL && (*run = pr_run(out, f)) == NULL)
            return -1;
        while (start < stop) {
            uint64_t raw;
            if (!pr_varint(data, &start, stop, &raw))
                return 0;
            if ((got = pr_scalar(f, raw, &v)) <= 0)
                return got;
            got = PyList_Append(*run, v);
            Py_DECREF(v);
            if (got < 0)
                return -1;
        }
        return 1;
    }
    else if (!varint && wire == 2) {
        if (!pr_span(data, pos, end, &start, &stop))
            return 0;
        got = pr_delimited(r, f, data, start, stop, depth, &v);
    }
    else {
        return 0;
    }
    if (got <= 0 || v == NULL)
        return got;
    if (!f->repeated) {
        got = PyDict_SetItem(out, f->name, v) < 0 ? -1 : 1;
    }
    else if (*run == NULL && (*run = pr_run(out, f)) == NULL) {
        got = -1;
    }
    else {
        got = PyList_Append(*run, v) < 0 ? -1 : 1;
    }
    Py_DECREF(v);
    return got;
}

static int
pr_message_of(pr_reader *r, const pr_message *msg, const unsigned char *data, Py_ssize_t pos, Py_ssize_t end,
              int depth, PyObject **out)
{
    if (depth > r->max_depth)
        return 0;
    PyObject *doc = PyDict_New();
    if (doc == NULL)
        return -1;
    uint32_t last = 0;
    uint64_t oneofs = 0;
    PyObject *run = NULL;
    int got = 1;
    while (got > 0 && pos < end) {
        uint64_t tag;
        if (!pr_varint(data, &pos, end, &tag) || (tag >> 3) == 0 || (tag >> 3) > msg->max_number) {
            got = 0;
            break;
        }
        const uint32_t number = (uint32_t)(tag >> 3);
        const int32_t at = msg->by_number[number];
        if (at < 0 || number < last) {
            got = 0;
            break;
        }
        const pr_field *f = &msg->fields[at];
        if (number == last) {
            if (!f->repeated) {
                got = 0;
                break;
            }
        }
        else {
            last = number;
            run = NULL;
            if (f->oneof >= 0) {
                if (oneofs >> f->oneof & 1) {
                    got = 0;
                    break;
                }
                oneofs |= (uint64_t)1 << f->oneof;
            }
        }
        got = pr_field_into(r, f, (int)(tag & 7), data, &pos, end, depth, doc, &run);
    }
    if (got <= 0) {
        Py_DECREF(doc);
        return got;
    }
    *out = doc;
    return 1;
}

static PyObject *
pb_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "pb_read takes 7 arguments");
        return NULL;
    }
    pr_tables *t = PyCapsule_GetPointer(args[0], "memorywire.pb_reader_tables");
    if (t == NULL)
        return NULL;
    if (!PyBytes_CheckExact(args[1]))
        Py_RETURN_NONE;
    const Py_ssize_t root = PyLong_AsSsize_t(args[2]);
    const long max_depth = PyLong_AsLong(args[3]);
    if ((root == -1 || max_depth == -1) && PyErr_Occurred())
        return NULL;
    if (root < 0 || root >= t->n_messages) {
        PyErr_SetString(PyExc_ValueError, "pb_read: no such message");
        return NULL;
    }
    /* Deeper than upb reads, a document takes the path that names its
     * fault: no deeper recursion here, nor in the validator after it. */
    pr_reader r = {t, max_depth > PR_MAX_DEPTH ? PR_MAX_DEPTH : (int)max_depth, args[4], args[5], args[6]};
    PyObject *doc = NULL;
    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    int got = pr_message_of(&r, &t->messages[root], data, 0, PyBytes_GET_SIZE(args[1]), 1, &doc);
    if (got < 0)
        return NULL;
    if (got == 0)
        Py_RETURN_NONE;
    return doc;
}

static PyMethodDef methods[] = {
    {"term_columns", (PyCFunction)(void (*)(void))term_columns, METH_FASTCALL,
     "The number of terms and the term column of each text of chunks, or None."},
    {"ordered_record", ordered_record, METH_O,
     "A record's members in their canonical order (service.records.in_canonical_order), or None."},
    {"record_row", (PyCFunction)(void (*)(void))record_row, METH_FASTCALL,
     "The stored row, embedding rows and vector-index entries of a new record (service.store.record_row), or None."},
    {"json_scan", json_scan, METH_O, "The object members of a JSON text and whether it is clean, or None."},
    {"decimal_powers", decimal_powers, METH_O, "Set the powers of five of the reading of JSON numbers."},
    {"json_numbers", json_numbers, METH_O, "The numbers of a JSON array as a float32 vector is read, or None."},
    {"msgpack_scan", msgpack_scan, METH_O, "The map entries and timestamps of a MessagePack object, or None."},
    {"tree_counts", (PyCFunction)(void (*)(void))tree_counts, METH_FASTCALL,
     "The members of the dicts of a tree and its datetimes; with texts, datetimes become text."},
    {"value_ok", (PyCFunction)(void (*)(void))value_ok, METH_FASTCALL, "Whether a Value is within the rules."},
    {"float32_le", float32_le, METH_O, "The little-endian binary32 bytes of finite floats and ints, or None."},
    {"float32_sum_squares", float32_sum_squares, METH_O,
     "The sum of the squares of little-endian binary32 values, added in order in binary64, or None."},
    {"canonical_tables", canonical_tables, METH_VARARGS, "The tables of the canonical pass, checked."},
    {"canonical", (PyCFunction)(void (*)(void))canonical, METH_FASTCALL,
     "The canonical form of a valid document of a message type of the tables."},
    {"canonical_msgpack", (PyCFunction)(void (*)(void))canonical_msgpack, METH_FASTCALL,
     "The canonical MessagePack bytes of a valid document of a message type of the tables."},
    /* The canonical Protobuf writer. */
    {"pb_tables", (PyCFunction)(void (*)(void))pb_set_tables, METH_FASTCALL,
     "Set the field tables of the Protobuf writer."},
    {"pb_write", (PyCFunction)(void (*)(void))pb_write, METH_FASTCALL,
     "The canonical Protobuf bytes of a validated document, or None."},
    {"pb_reader_tables", pb_reader_tables, METH_O, "The field tables of the compiled Protobuf reader, as a capsule."},
    {"pb_read", (PyCFunction)(void (*)(void))pb_read, METH_FASTCALL,
     "The JSON form of a message's bytes as from_proto gives it, or None for the path of upb."},
    {"pb_packed_field", (PyCFunction)(void (*)(void))pb_packed_field, METH_FASTCALL,
     "The bytes of a length-delimited field at the top level of a message, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "memorywire._speedups", "The typed fast path, the canonical writers, and the reading of float32 vectors, in C.",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    datetime_type = (PyObject *)PyDateTimeAPI->DateTimeType;
    Py_INCREF(datetime_type);
    if (PyType_Ready(&FastPathType) < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL)
        return NULL;
    if (PyModule_AddStringConstant(mod, "VECTOR_PLACEHOLDER", (const char[]){VECTOR_PLACEHOLDER_CHAR, 0}) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(&FastPathType);
    if (PyModule_AddObject(mod, "FastPath", (PyObject *)&FastPathType) < 0) {
        Py_DECREF(&FastPathType);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
