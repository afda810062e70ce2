import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-JVQ3AQRS.js";import"./pm-chunk-chunk-DP5KH4UB.js";import"./pm-chunk-chunk-473GYXGZ.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-D7MBRRIV.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-M72P5YGM.js.map
