import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-OJ4MQW3L.js";import"./pm-chunk-chunk-L5UAZJQR.js";import"./pm-chunk-chunk-4NJPCSEB.js";import"./pm-chunk-chunk-K5QWENCI.js";import"./pm-chunk-chunk-ILOCNFNF.js";import"./pm-chunk-chunk-XZGCZZUH.js";import"./pm-chunk-chunk-BJ4S7XPI.js";import"./pm-chunk-chunk-TZNAT6UJ.js";import"./pm-chunk-chunk-BVHI2QRO.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-HSKLVPQY.js.map
