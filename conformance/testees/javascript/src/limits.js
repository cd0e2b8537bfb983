"use strict";
// The default resource limits of security.md §4.
const DEFAULT_LIMITS = Object.freeze({
  maxDocumentBytes: 16777216,
  maxDepth: 32,
  maxStringBytes: 1048576,
  maxItems: 100000,
  maxDimensions: 65536,
  maxBatchRecords: 1000,
});

module.exports = { DEFAULT_LIMITS };
