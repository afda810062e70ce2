import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-2UXIKSN4.js";import"./pm-chunk-chunk-RDYT2H5M.js";import"./pm-chunk-chunk-2W3ER64R.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-257F5HG5.js";import"./pm-chunk-chunk-JNE54UC7.js";import"./pm-chunk-chunk-RYSTSZ47.js";import"./pm-chunk-chunk-D7RCHNGH.js";import"./pm-chunk-chunk-MKVLONNN.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-CXZSWXL4.js.map
