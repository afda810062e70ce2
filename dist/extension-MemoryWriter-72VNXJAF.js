import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-2ZV7IKAG.js";import"./extension-chunk-ORAOPDJ3.js";import"./extension-chunk-OYQNXFKQ.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-Y2M3U6WG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-72VNXJAF.js.map
