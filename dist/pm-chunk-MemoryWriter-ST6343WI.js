import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-HXRCLK6M.js";import"./pm-chunk-chunk-R4DBBOAO.js";import"./pm-chunk-chunk-TPUAOHM5.js";import"./pm-chunk-chunk-MCEC5CBW.js";import"./pm-chunk-chunk-ZOACDVLN.js";import"./pm-chunk-chunk-LKDWFQHW.js";import"./pm-chunk-chunk-Y3GEDAQF.js";import"./pm-chunk-chunk-Z7WXHF5K.js";import"./pm-chunk-chunk-HPDUJ7QL.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-ST6343WI.js.map
