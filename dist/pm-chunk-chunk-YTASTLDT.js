import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a as c,b as m}from"./pm-chunk-chunk-2J4GMXLI.js";import{b as i}from"./pm-chunk-chunk-3O353RX5.js";import{a}from"./pm-chunk-chunk-5YH2YOSW.js";var u=(t,n)=>{let o=a(n).trim();return{rules:c(a(t)),indexSection:o===""?m:o}},x=(t,n)=>`<${t}>
${n}
</${t}>`,s=t=>t.toLocaleString("en-US"),l=t=>({chars:t.length,tokens:i(t.length)}),g=t=>{let n=t.map(e=>({...e,...l(e.text)})),o=n.reduce((e,r)=>e+r.chars,0);return{parts:n,chars:o,tokens:i(o)}},h=(t,n,o=!1)=>{let e=[];for(let r of t.parts)e.push(`${r.name} (${r.where}): ${s(r.chars)} characters, about ${s(r.tokens)} tokens${r.note===void 0?"":` \u2014 ${r.note}`}`),o||e.push(r.text,"");return e.push(`Total: ${s(t.chars)} characters, about ${s(t.tokens)} tokens (estimated at 4 characters per token).`),[...e,...n].join(`
`)};export{u as a,x as b,g as c,h as d};
//# sourceMappingURL=pm-chunk-chunk-YTASTLDT.js.map
