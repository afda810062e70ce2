import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-MBUELGCJ.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-6MW5X2MS.js";import"./extension-chunk-QHSQM425.js";import"./extension-chunk-ZZDTP5XX.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-IKR2NBFD.js.map
