"use strict";
// The named string formats of core.md §3: uri (RFC 3986 absolute URI),
// uri-reference (RFC 3986 §4.1), json-pointer (RFC 6901) and media-type
// (RFC 9110 §8.3.1).

const HEX = "[0-9A-Fa-f]";
const PCT = `%${HEX}{2}`;
const UNRES = "A-Za-z0-9\\-._~";
const SUB = "!$&'()*+,;=";
const PCHAR = `(?:[${UNRES}${SUB}:@]|${PCT})`;
const SEGMENT = `${PCHAR}*`;
const SEGMENT_NZ = `${PCHAR}+`;
const SEGMENT_NZ_NC = `(?:[${UNRES}${SUB}@]|${PCT})+`;
const USERINFO = `(?:[${UNRES}${SUB}:]|${PCT})*`;
const REGNAME = `(?:[${UNRES}${SUB}]|${PCT})*`;
const IPLITERAL = "\\[([^\\]]*)\\]";
const AUTHORITY = `(?:${USERINFO}@)?(?:${IPLITERAL}|${REGNAME})(?::[0-9]*)?`;
const PATH_ABEMPTY = `(?:/${SEGMENT})*`;
const PATH_ABSOLUTE = `/(?:${SEGMENT_NZ}(?:/${SEGMENT})*)?`;
const PATH_ROOTLESS = `${SEGMENT_NZ}(?:/${SEGMENT})*`;
const PATH_NOSCHEME = `${SEGMENT_NZ_NC}(?:/${SEGMENT})*`;
const QUERY = `(?:${PCHAR}|[/?])*`;
const SCHEME = "[A-Za-z][A-Za-z0-9+\\-.]*";
const HIER = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS}|)`;
const RELPART = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_NOSCHEME}|)`;

const URI_RE = new RegExp(`^${SCHEME}:${HIER}(?:\\?${QUERY})?(?:#${QUERY})?$`);
const ABSOLUTE_URI_RE = new RegExp(`^${SCHEME}:${HIER}(?:\\?${QUERY})?$`);
const RELATIVE_RE = new RegExp(`^${RELPART}(?:\\?${QUERY})?(?:#${QUERY})?$`);
const AUTH_RE = new RegExp(`//${AUTHORITY}`);

function validIPv6(s) {
  // IPv6address of RFC 3986 §3.2.2, with an optional trailing IPv4 part.
  let v4 = null;
  const lastColon = s.lastIndexOf(":");
  if (lastColon >= 0 && s.slice(lastColon + 1).includes(".")) {
    v4 = s.slice(lastColon + 1);
    if (!/^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/.test(v4)) return false;
    s = s.slice(0, lastColon + 1) + "0:0"; // stand-in for the two groups
  }
  const dbl = s.split("::");
  if (dbl.length > 2) return false;
  const groups = (part) => (part === "" ? [] : part.split(":"));
  const g1 = groups(dbl[0]);
  const g2 = dbl.length === 2 ? groups(dbl[1]) : [];
  for (const g of [...g1, ...g2]) if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return false;
  const total = g1.length + g2.length;
  return dbl.length === 2 ? total <= 7 : total === 8;
}

function validIpLiteral(inner) {
  if (/^[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/.test(inner)) return true;
  return validIPv6(inner);
}

function checkIpLiterals(s) {
  const m = AUTH_RE.exec(s);
  if (m && m[1] !== undefined && !validIpLiteral(m[1])) return false;
  return true;
}

// "an absolute URI, RFC 3986 section 4.3". See SPEC-NOTES.md: the fragment
// question. ABSOLUTE_URI_STRICT selects the strict reading (no fragment).
const ABSOLUTE_URI_STRICT = false;

function isUri(s) {
  const re = ABSOLUTE_URI_STRICT ? ABSOLUTE_URI_RE : URI_RE;
  return re.test(s) && checkIpLiterals(s);
}

function isUriReference(s) {
  if (URI_RE.test(s)) return checkIpLiterals(s);
  return RELATIVE_RE.test(s) && checkIpLiterals(s);
}

function isJsonPointer(s) {
  return /^(?:\/(?:[^~/]|~[01])*)*$/u.test(s);
}

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QSTRING = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
const MEDIA_RE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*(?:${TOKEN}=(?:${TOKEN}|${QSTRING}))?)*$`);

function isMediaType(s) {
  return MEDIA_RE.test(s);
}

function checkFormat(format, s) {
  switch (format) {
    case "uri": return isUri(s);
    case "uri-reference": return isUriReference(s);
    case "json-pointer": return isJsonPointer(s);
    case "media-type": return isMediaType(s);
    default: return true;
  }
}

module.exports = { checkFormat, isUri, isUriReference, isJsonPointer, isMediaType };
