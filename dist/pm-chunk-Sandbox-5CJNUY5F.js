import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-FVJLQIPS.js";import"./pm-chunk-chunk-OBEATGEW.js";import"./pm-chunk-chunk-5C2KTUKI.js";import"./pm-chunk-chunk-JQIKF7ZO.js";import"./pm-chunk-chunk-XBSWHZFR.js";import"./pm-chunk-chunk-KOKJRPNN.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-5CJNUY5F.js.map
