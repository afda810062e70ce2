import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-3QPZVFGY.js";import"./extension-chunk-VXAEXHST.js";import"./extension-chunk-VSHK2D2U.js";import"./extension-chunk-RYVCA7BY.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-EF7JI2M4.js.map
