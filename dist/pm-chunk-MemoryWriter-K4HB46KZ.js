import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-LRT7K7AJ.js";import"./pm-chunk-chunk-DXEL3ZZI.js";import"./pm-chunk-chunk-YSHF2UMM.js";import"./pm-chunk-chunk-GWKBAL2A.js";import"./pm-chunk-chunk-WTG7WLDU.js";import"./pm-chunk-chunk-QQJLT5BC.js";import"./pm-chunk-chunk-B6EVS43P.js";import"./pm-chunk-chunk-GX3YFYJX.js";import"./pm-chunk-chunk-PNVX3IXI.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-K4HB46KZ.js.map
