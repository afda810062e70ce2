import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-25WVB3EO.js";import"./pm-chunk-chunk-UUAW3Z7H.js";import"./pm-chunk-chunk-3AWYPDAO.js";import"./pm-chunk-chunk-JS37OAX5.js";import"./pm-chunk-chunk-ZOACDVLN.js";import"./pm-chunk-chunk-LKDWFQHW.js";import"./pm-chunk-chunk-Y3GEDAQF.js";import"./pm-chunk-chunk-Z7WXHF5K.js";import"./pm-chunk-chunk-HPDUJ7QL.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-UQNFDP42.js.map
