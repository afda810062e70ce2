import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-5PBWY45T.js";import"./pm-chunk-chunk-GP637PCF.js";import"./pm-chunk-chunk-JZC626DE.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-FUIGMJZQ.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-B3E2FRV5.js.map
