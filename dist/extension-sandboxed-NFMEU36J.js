import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-DAH5TQTH.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-VN4PVYGV.js";import"./extension-chunk-N2A3Q65Z.js";import"./extension-chunk-22TAQMVP.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-NFMEU36J.js.map
