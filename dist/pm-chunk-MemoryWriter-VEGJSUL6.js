import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-2MFSPMP3.js";import"./pm-chunk-chunk-EV42ZEZW.js";import"./pm-chunk-chunk-BEO75JYJ.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-N7QDWBXF.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-VEGJSUL6.js.map
