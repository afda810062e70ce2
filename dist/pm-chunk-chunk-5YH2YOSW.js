import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
var u=["system-reminder","auto_memory","auto_memory_index","auto_memory_notice","auto_memory_date","memory_recall"],r="<\uFF1C\uFE64\u2039\u3008\u27E8\u276E\u02C2\u2329\u1438",t=new RegExp(`[${r}](\\s*/?\\s*)(?=(?:${u.join("|")})(?![A-Za-z0-9_-]))`,"giu"),s=new RegExp("[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\p{Cf}\\uFEFF\\u2028\\u2029\\u115F\\u1160\\u3164\\uFFA0]|\\p{Cs}","gu"),n=e=>e.replace(/\r\n?/g,`
`).replace(s,"").replace(t,"&lt;$1"),o=e=>`<system-reminder>
${n(e)}
</system-reminder>`;export{n as a,o as b};
//# sourceMappingURL=pm-chunk-chunk-5YH2YOSW.js.map
