import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-SOZSL4K5.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-M5A3XGON.js";import"./extension-chunk-SHZRF5EH.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-ECO5RJPY.js.map
