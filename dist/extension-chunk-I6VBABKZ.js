import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{l as p}from"./extension-chunk-64YL3QTK.js";import{K as c,a as g}from"./extension-chunk-W6G2ATXT.js";var d=(t,n,r)=>{let e=[],o=0;for(let i of t){let s=i.length+(e.length>0?1:0);if(e.length>=n||o+s>r)return{kept:e,truncated:!0};e.push(i),o+=s}return{kept:e,truncated:!1}},E=t=>{let n=t.replace(/^\uFEFF/,"").replace(/\r\n?/g,`
`).trim();if(n==="")return{text:"",lines:0,chars:0,truncated:!1};let{kept:r,truncated:e}=d(n.split(`
`),200,25e3),o=r.join(`
`);return{text:e?`${o}

${g} (over ${200} lines or ${25e3} characters); only the part above was loaded.`:o,lines:r.length,chars:o.length,truncated:e}},x=t=>t.replace(/[ ()<>%]/g,n=>`%${n.charCodeAt(0).toString(16).toUpperCase().padStart(2,"0")}`),u=t=>t.replace(/\s+/g," ").replace(/[[\]]/g,"").trim(),h=(t,n)=>t.length<=n?t:`${t.slice(0,n-1).replace(/[\uD800-\uDBFF]$/,"").trimEnd()}\u2026`,I=t=>{let n=x(t.filename),r=c-6-n.length,o=`- [${h(u(t.title)||t.filename,Math.max(12,r))}](${n})`,i=t.description===void 0?"":u(t.description);if(i==="")return o;let s=c-o.length-3;return s<12?o:`${o} - ${h(i,s)}`},y=t=>t.endsWith(".md")&&!/[\u0000-\u001F\u007F\]\[]/.test(t)&&!t.startsWith("/"),$=t=>{let n=t.filter(e=>y(e.filename)).map(I),{kept:r}=d(n,160,2e4);return r.length===0?"":`${r.join(`
`)}
`},N=(t,n)=>{let r=t.replace(/^\uFEFF/,"").replace(/\r\n?/g,`
`).trim(),{kept:e}=d(r.split(`
`),200,25e3);return e.includes(n)},_=t=>`MEMORY.md is longer than a session loads (its first ${200} lines or ${p(25e3)} characters), so the line for ${t} is past what a session reads at its start; recall still finds the topic by its words. Shorten MEMORY.md (edit it, or let the dream consolidate it) to bring the line inside.`;export{E as a,I as b,$ as c,N as d,_ as e};
//# sourceMappingURL=extension-chunk-I6VBABKZ.js.map
