import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./pm-chunk-chunk-KDDERKHA.js";import"./pm-chunk-chunk-ATZ7XB4M.js";import"./pm-chunk-chunk-4AYIZL52.js";import"./pm-chunk-chunk-ZRURPH7Q.js";import"./pm-chunk-chunk-2HTIP4UA.js";import"./pm-chunk-chunk-6TXFZS4J.js";import"./pm-chunk-chunk-TQLHLIOG.js";import"./pm-chunk-chunk-H4AXHC5B.js";import"./pm-chunk-chunk-LTQHKAXY.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-ZQNP356Q.js.map
