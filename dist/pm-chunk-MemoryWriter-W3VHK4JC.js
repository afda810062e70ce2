import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-7HBB7P65.js";import"./pm-chunk-chunk-DC5USFVR.js";import"./pm-chunk-chunk-3ZCT4QUU.js";import"./pm-chunk-chunk-S6PRR6UA.js";import"./pm-chunk-chunk-HMOMGMYY.js";import"./pm-chunk-chunk-QTYYSKGY.js";import"./pm-chunk-chunk-WTEIUIG2.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-W3VHK4JC.js.map
