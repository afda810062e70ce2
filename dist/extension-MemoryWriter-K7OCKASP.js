import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-MHFXLFYM.js";import"./extension-chunk-6F6BG6A5.js";import"./extension-chunk-TVFGAVPP.js";import"./extension-chunk-3O5R5Q3W.js";import"./extension-chunk-DZBCEXCQ.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-K7OCKASP.js.map
