import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-OOZTVS2Y.js";import"./pm-chunk-chunk-LPVMTFVO.js";import"./pm-chunk-chunk-HLEYNUPM.js";import"./pm-chunk-chunk-GWKBAL2A.js";import"./pm-chunk-chunk-IQUQM3GG.js";import"./pm-chunk-chunk-RMZMN22J.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-3KVJXM7C.js.map
