import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{D as a,E as b}from"./extension-chunk-G3TDUT4Z.js";import"./extension-chunk-PGWKSNGQ.js";import"./extension-chunk-BJ5V5IR3.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-JMSMBYOC.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-EV2HSYUD.js.map
