import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  benchNginxConfig,
  requestsPerUpstream,
  rewriteDeployedServer,
  temporaryPaths,
} from '../../bench/nginx-config.js';
import { ROOT } from '../helpers/process.js';

const deployed = readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');

/** The deployed file without its /media/ location block (from its opening line to its closing brace line). */
function withoutMediaBlock(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === 'location /media/ {');
  const end = lines.findIndex((line, index) => index > start && line === '    }');
  return [...lines.slice(0, start), ...lines.slice(end + 1)];
}

describe('bench nginx configuration, from deploy/nginx.conf', () => {
  it('points the upstream servers and the listen line at 127.0.0.1 and changes nothing else', () => {
    const rewritten = rewriteDeployedServer(deployed, 5000, [4001, 4002]);
    const before = withoutMediaBlock(deployed);
    const after = rewritten.split('\n').filter((line) => !line.trim().startsWith('# location /media/'));
    const afterWithoutNote = after.filter((line) => !line.includes('which every instance shares'));
    expect(afterWithoutNote).toHaveLength(before.length);
    const changed = before
      .map((line, index) => [line, afterWithoutNote[index]])
      .filter(([from, to]) => from !== to);
    expect(changed).toEqual([
      [
        '    server accounts-1:8080 max_fails=2 fail_timeout=10s;',
        '    server 127.0.0.1:4001 max_fails=2 fail_timeout=10s;',
      ],
      [
        '    server accounts-2:8080 max_fails=2 fail_timeout=10s;',
        '    server 127.0.0.1:4002 max_fails=2 fail_timeout=10s;',
      ],
      ['    listen 8080;', '    listen 127.0.0.1:5000;'],
    ]);
  });

  it('leaves out the MinIO location and says why', () => {
    const rewritten = rewriteDeployedServer(deployed, 5000, [4001, 4002]);
    expect(deployed).toContain('location /media/ {');
    expect(rewritten).not.toContain('location /media/ {');
    expect(rewritten).not.toContain('minio');
    expect(rewritten).toContain('# location /media/ (MinIO in compose.yaml) is left out');
    // The rest of the server block, the balanced location included, is still there and still closed.
    expect(rewritten).toContain('proxy_pass http://accounts;');
    expect(rewritten.match(/\{/g)?.length).toBe(rewritten.match(/\}/g)?.length);
  });

  it('refuses a deployed file whose shape it does not know', () => {
    expect(() => rewriteDeployedServer(deployed, 5000, [4001, 4002, 4003])).toThrow(
      'the upstream has 2 server lines, the bench starts 3 instances',
    );
    expect(() => rewriteDeployedServer(deployed.replace('listen 8080;', ''), 5000, [4001, 4002])).toThrow(
      '0 listen lines',
    );
    expect(() =>
      rewriteDeployedServer(deployed.replace('upstream accounts {', 'upstream app {'), 5000, [1, 2]),
    ).toThrow('no `upstream accounts` block');
    expect(() =>
      rewriteDeployedServer(deployed.replace('location /media/ {', 'location /files/ {'), 5000, [1, 2]),
    ).toThrow('no `location /media/` block');
  });

  it('wraps it in a foreground main context whose files all live in the prefix directory', () => {
    const options = {
      listenPort: 5000,
      upstreamPorts: [4001, 4002],
      prefix: '/tmp/nginx-x',
      buildInfo: 'configure arguments: --with-http_ssl_module',
      runAsRoot: false,
    };
    const config = benchNginxConfig(deployed, options);
    expect(config).toMatch(/^daemon off;$/m);
    expect(config).toMatch(/^worker_processes auto;$/m);
    expect(config).toContain('pid /tmp/nginx-x/nginx.pid;');
    expect(config).toContain('error_log /tmp/nginx-x/error.log warn;');
    expect(config).toContain('access_log /tmp/nginx-x/access.log bench;');
    expect(config).toContain('upstream=$upstream_addr');
    expect(config).toContain('proxy_temp_path /tmp/nginx-x/proxy;');
    expect(config).toContain('        server 127.0.0.1:4001 max_fails=2 fail_timeout=10s;');
    expect(config).not.toMatch(/^user /m);
    // Every file path a directive ends with is under the prefix.
    const paths = [...config.matchAll(/ (\/[^\s;]*);/g)].map((match) => match[1]);
    expect(paths.length).toBeGreaterThan(5);
    for (const file of paths) expect(file?.startsWith('/tmp/nginx-x/')).toBe(true);
    expect(benchNginxConfig(deployed, { ...options, runAsRoot: true })).toMatch(/^user root;$/m);
  });

  it('sets temporary paths only for the modules nginx was built with', () => {
    const all = temporaryPaths('/p', 'configure arguments: --prefix=/usr/share/nginx');
    expect(all).toEqual([
      'client_body_temp_path /p/client_body;',
      'proxy_temp_path /p/proxy;',
      'fastcgi_temp_path /p/fastcgi;',
      'uwsgi_temp_path /p/uwsgi;',
      'scgi_temp_path /p/scgi;',
    ]);
    const light = temporaryPaths('/p', '--without-http_uwsgi_module --without-http_scgi_module');
    expect(light).toEqual([
      'client_body_temp_path /p/client_body;',
      'proxy_temp_path /p/proxy;',
      'fastcgi_temp_path /p/fastcgi;',
    ]);
  });

  it('counts the requests each instance answered from the access log', () => {
    const log = [
      '127.0.0.1 - - [26/Nov/2026:19:00:00 +0000] "GET /v1/user/get HTTP/1.1" 200 512 "-" "-" upstream=127.0.0.1:4001',
      '127.0.0.1 - - [26/Nov/2026:19:00:00 +0000] "GET /v1/user/get HTTP/1.1" 200 512 "-" "-" upstream=127.0.0.1:4002',
      '127.0.0.1 - - [26/Nov/2026:19:00:00 +0000] "POST /v1/post/x/like HTTP/1.1" 200 9 "-" "-" upstream=127.0.0.1:4001, 127.0.0.1:4002',
      '127.0.0.1 - - [26/Nov/2026:19:00:01 +0000] "GET /metrics HTTP/1.1" 404 153 "-" "-" upstream=-',
      '',
    ].join('\n');
    expect(requestsPerUpstream(log)).toEqual({ '127.0.0.1:4001': 1, '127.0.0.1:4002': 2, '-': 1 });
  });
});
