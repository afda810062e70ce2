import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{D as a,E as b}from"./extension-chunk-6KGNVATZ.js";import"./extension-chunk-PGWKSNGQ.js";import"./extension-chunk-OYQNXFKQ.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-Y2M3U6WG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-LTMIL2WC.js.map
