import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-S46LNWTU.js";import"./pm-chunk-chunk-JLTEMZCS.js";import"./pm-chunk-chunk-EOGD6GUT.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-4ZIV34XX.js";import"./pm-chunk-chunk-2FRS23N3.js";import"./pm-chunk-chunk-L7NBDRYT.js";import"./pm-chunk-chunk-U6ESOK43.js";import"./pm-chunk-chunk-AEMJYHSR.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-A4ASPMFT.js.map
