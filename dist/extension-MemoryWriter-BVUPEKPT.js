import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-FSQOFPY2.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-HVRXV66A.js";import"./extension-chunk-E7FVJSDL.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-BVUPEKPT.js.map
