import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-RCCJ7OH3.js";import"./pm-chunk-chunk-UJNDMBA7.js";import"./pm-chunk-chunk-2H6ZW43L.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-OBRMLD5K.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-YRCBQP7J.js.map
