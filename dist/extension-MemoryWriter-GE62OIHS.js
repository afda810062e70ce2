import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-L2GTCRER.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-IR3WPI2V.js";import"./extension-chunk-3O5R5Q3W.js";import"./extension-chunk-46XOJP5H.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-GE62OIHS.js.map
