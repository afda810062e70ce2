import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-6T3GGWYB.js";import"./pm-chunk-chunk-PSJAZTMU.js";import"./pm-chunk-chunk-RSNMG5KD.js";import"./pm-chunk-chunk-ZRURPH7Q.js";import"./pm-chunk-chunk-M3SPM7VC.js";import"./pm-chunk-chunk-6TXFZS4J.js";import"./pm-chunk-chunk-TQLHLIOG.js";import"./pm-chunk-chunk-H4AXHC5B.js";import"./pm-chunk-chunk-LTQHKAXY.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-H72D7TUT.js.map
