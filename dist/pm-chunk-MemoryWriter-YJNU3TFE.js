import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-LOTT5CYS.js";import"./pm-chunk-chunk-EV42ZEZW.js";import"./pm-chunk-chunk-WTN4MAH7.js";import"./pm-chunk-chunk-N7QDWBXF.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-LKDWFQHW.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-YJNU3TFE.js.map
