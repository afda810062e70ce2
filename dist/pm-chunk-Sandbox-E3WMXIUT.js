import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-LVXGEYMG.js";import"./pm-chunk-chunk-AWVT23NQ.js";import"./pm-chunk-chunk-LKDWFQHW.js";import"./pm-chunk-chunk-Y3GEDAQF.js";import"./pm-chunk-chunk-Z7WXHF5K.js";import"./pm-chunk-chunk-HPDUJ7QL.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-E3WMXIUT.js.map
