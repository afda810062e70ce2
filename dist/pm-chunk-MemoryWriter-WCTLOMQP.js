import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-R3HCWIOJ.js";import"./pm-chunk-chunk-2VPVOEN5.js";import"./pm-chunk-chunk-6N5SIGV6.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-5PTFLK7V.js";import"./pm-chunk-chunk-ZOACDVLN.js";import"./pm-chunk-chunk-Y3GEDAQF.js";import"./pm-chunk-chunk-Z7WXHF5K.js";import"./pm-chunk-chunk-HPDUJ7QL.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-WCTLOMQP.js.map
