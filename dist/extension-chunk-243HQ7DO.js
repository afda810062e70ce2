import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{K as c,a as g}from"./extension-chunk-W6G2ATXT.js";var d=(t,n,r)=>{let e=[],i=0;for(let o of t){let s=o.length+(e.length>0?1:0);if(e.length>=n||i+s>r)return{kept:e,truncated:!0};e.push(o),i+=s}return{kept:e,truncated:!1}},b=t=>{let n=t.replace(/^\uFEFF/,"").replace(/\r\n?/g,`
`).trim();if(n==="")return{text:"",lines:0,chars:0,truncated:!1};let{kept:r,truncated:e}=d(n.split(`
`),200,25e3),i=r.join(`
`);return{text:e?`${i}

${g} (over ${200} lines or ${25e3} characters); only the part above was loaded.`:i,lines:r.length,chars:i.length,truncated:e}},f=t=>t.replace(/[ ()<>%]/g,n=>`%${n.charCodeAt(0).toString(16).toUpperCase().padStart(2,"0")}`),p=t=>t.replace(/\s+/g," ").replace(/[[\]]/g,"").trim(),u=(t,n)=>t.length<=n?t:`${t.slice(0,n-1).replace(/[\uD800-\uDBFF]$/,"").trimEnd()}\u2026`,x=t=>{let n=f(t.filename),r=c-6-n.length,i=`- [${u(p(t.title)||t.filename,Math.max(12,r))}](${n})`,o=t.description===void 0?"":p(t.description);if(o==="")return i;let s=c-i.length-3;return s<12?i:`${i} - ${u(o,s)}`},I=t=>t.endsWith(".md")&&!/[\u0000-\u001F\u007F\]\[]/.test(t)&&!t.startsWith("/"),A=t=>{let n=t.filter(e=>I(e.filename)).map(x),{kept:r}=d(n,160,2e4);return r.length===0?"":`${r.join(`
`)}
`},E=(t,n)=>{let r=t.replace(/^\uFEFF/,"").replace(/\r\n?/g,`
`).trim(),{kept:e}=d(r.split(`
`),200,25e3);return e.includes(n)},$=t=>`MEMORY.md is longer than a session loads (its first ${200} lines or ${25e3.toLocaleString("en-US")} characters), so the line for ${t} is past what a session reads at its start; recall still finds the topic by its words. Shorten MEMORY.md (edit it, or let the dream consolidate it) to bring the line inside.`;export{b as a,x as b,A as c,E as d,$ as e};
//# sourceMappingURL=extension-chunk-243HQ7DO.js.map
