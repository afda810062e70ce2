import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-WCIAGY4J.js";import"./pm-chunk-chunk-GQF5DMC4.js";import"./pm-chunk-chunk-ZBSU5ZDU.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-4OVMTYEC.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-THQBPHFB.js.map
