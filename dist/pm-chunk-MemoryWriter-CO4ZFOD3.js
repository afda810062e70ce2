import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-QBSSFK2B.js";import"./pm-chunk-chunk-5CMBQRJN.js";import"./pm-chunk-chunk-IS6XTUML.js";import"./pm-chunk-chunk-ZRURPH7Q.js";import"./pm-chunk-chunk-QS237DZV.js";import"./pm-chunk-chunk-6TXFZS4J.js";import"./pm-chunk-chunk-TQLHLIOG.js";import"./pm-chunk-chunk-H4AXHC5B.js";import"./pm-chunk-chunk-LTQHKAXY.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-CO4ZFOD3.js.map
