import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-OL7UIVSR.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-CAKMSAPD.js";import"./extension-chunk-EA6RJCDX.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-WRXZXWXN.js.map
