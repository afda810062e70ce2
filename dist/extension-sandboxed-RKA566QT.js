import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-ERXR3YPD.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-CIF4SF3X.js";import"./extension-chunk-IR3WPI2V.js";import"./extension-chunk-3O5R5Q3W.js";import"./extension-chunk-46XOJP5H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-RKA566QT.js.map
