import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-HIVIAFKV.js";import"./pm-chunk-chunk-I7T2DLSE.js";import"./pm-chunk-chunk-YM2RIC4F.js";import"./pm-chunk-chunk-F3JZX3JV.js";import"./pm-chunk-chunk-ZOIJLSXP.js";import"./pm-chunk-chunk-P3HTPOA4.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-XEYMDT3B.js.map
