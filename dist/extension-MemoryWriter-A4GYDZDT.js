import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-ZJA4HOUS.js";import"./extension-chunk-VXAEXHST.js";import"./extension-chunk-DSX657K3.js";import"./extension-chunk-GOTU2QXM.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-A4GYDZDT.js.map
