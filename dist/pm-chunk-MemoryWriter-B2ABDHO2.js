import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-3LHTPBSL.js";import"./pm-chunk-chunk-TYT5SYC4.js";import"./pm-chunk-chunk-J5KSL3D4.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-O36US4J4.js";import"./pm-chunk-chunk-2FRS23N3.js";import"./pm-chunk-chunk-L7NBDRYT.js";import"./pm-chunk-chunk-U6ESOK43.js";import"./pm-chunk-chunk-AEMJYHSR.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-B2ABDHO2.js.map
