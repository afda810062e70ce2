import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-CRAQO27Y.js";import"./pm-chunk-chunk-AWVT23NQ.js";import"./pm-chunk-chunk-LKDWFQHW.js";import"./pm-chunk-chunk-AWRHECQE.js";import"./pm-chunk-chunk-F2VMJZ2Z.js";import"./pm-chunk-chunk-2MMGSAAK.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-RWPRTVN6.js.map
