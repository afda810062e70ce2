import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{D as a,E as b}from"./extension-chunk-TOHMIRB3.js";import"./extension-chunk-PGWKSNGQ.js";import"./extension-chunk-7VKJIUGT.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-4W3DNZMQ.js.map
