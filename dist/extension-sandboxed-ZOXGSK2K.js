import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-VIKHD2ZV.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-JRUG4POS.js";import"./extension-chunk-ZJIPUD3O.js";import"./extension-chunk-N4CZYYWW.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-ZOXGSK2K.js.map
