import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-5RG3NBOJ.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-7IGZ7GL3.js";import"./extension-chunk-M5A3XGON.js";import"./extension-chunk-SHZRF5EH.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-R25VIR2Z.js.map
