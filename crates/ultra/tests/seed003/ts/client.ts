// Seed 003 §10's TypeScript client. Everything down to the end of the class is the seed's text,
// unchanged; `main` is the seed's usage flow on a real workspace, with checks.
import WebSocket from 'ws';
import { v4 as uuidv4 } from 'uuid';

interface RPCRequest {
  jsonrpc: '2.0';
  id: string;
  method: string;
  params?: Record<string, unknown>;
}

interface RPCResponse {
  jsonrpc: '2.0';
  id: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

class VSCodeAgentClient {
  private ws: WebSocket | null = null;
  private pending = new Map<string, { resolve: Function; reject: Function }>();
  
  constructor(
    private host = 'localhost',
    private port = 19876,
    private token = ''
  ) {}
  
  async connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocket(`ws://${this.host}:${this.port}`);
      
      this.ws.on('message', async (data: string) => {
        const message = JSON.parse(data);
        
        // Handle auth challenge
        if (message.method === 'auth.challenge') {
          const result = await this.send('auth.authenticate', {
            token: this.token,
            nonce: message.params.nonce
          });
          if (result.authenticated) {
            resolve();
          } else {
            reject(new Error('Authentication failed'));
          }
          return;
        }
        
        // Handle response
        if (message.id && this.pending.has(message.id)) {
          const { resolve, reject } = this.pending.get(message.id)!;
          this.pending.delete(message.id);
          
          if (message.error) {
            reject(new Error(message.error.message));
          } else {
            resolve(message.result);
          }
        }
      });
      
      this.ws.on('error', reject);
    });
  }
  
  private send(method: string, params?: Record<string, unknown>): Promise<any> {
    return new Promise((resolve, reject) => {
      const id = uuidv4();
      this.pending.set(id, { resolve, reject });
      
      const request: RPCRequest = {
        jsonrpc: '2.0',
        id,
        method,
        params
      };
      
      this.ws!.send(JSON.stringify(request));
    });
  }
  
  async openFile(path: string, preview = false): Promise<{ documentUri: string }> {
    return this.send('editor.openFile', { path, preview });
  }
  
  async getContent(path: string): Promise<string> {
    const result = await this.send('editor.getContent', { path });
    return result.content;
  }
  
  async setContent(path: string, content: string): Promise<void> {
    await this.send('editor.setContent', { path, content });
  }
  
  async executeCommand(command: string, args: unknown[] = []): Promise<unknown> {
    const result = await this.send('command.execute', { command, args });
    return result.result;
  }
  
  close(): void {
    this.ws?.close();
  }
}

// Usage: node dist/client.js PORT TOKEN FILE, FILE an absolute path in the workspace that
// holds `foo`. Prints `ok` last when every check passed.
async function main() {
  const [port, token, file] = process.argv.slice(2);
  const client = new VSCodeAgentClient('localhost', Number(port), token);
  await client.connect();

  // Open file
  const opened = await client.openFile(file);
  check(opened.documentUri === `file://${file}`, `documentUri ${opened.documentUri}`);

  // Read and modify
  const content = await client.getContent(file);
  check(content.includes('foo'), `content ${content}`);
  await client.setContent(file, content.replace('foo', 'bar'));

  // Execute command
  await client.executeCommand('workbench.action.files.save');
  const listed = (await client.executeCommand('command.list', [{ filter: 'editor.' }])) as {
    commands: string[];
  };
  check(listed.commands.includes('editor.getContent'), `listed ${JSON.stringify(listed)}`);

  // An error reaches the caller as a rejected promise with the server's message.
  const missing = await client.getContent('missing.ts').then(
    () => 'no error',
    (e: Error) => e.message,
  );
  check(missing.includes('missing.ts'), `missing file: ${missing}`);
  client.close();

  // A wrong token: the seed's client sees its authenticate call rejected (inside its message
  // handler, so as an unhandled rejection) and never connects.
  const refused = new Promise<string>((resolve) =>
    process.once('unhandledRejection', (e) => resolve(String(e))),
  );
  const bad = new VSCodeAgentClient('localhost', Number(port), 'wrong-token');
  const connected = bad.connect().then(() => 'connected', (e: Error) => `rejected: ${e.message}`);
  const outcome = await Promise.race([refused, connected]);
  check(/auth/i.test(outcome), `wrong token: ${outcome}`);
  console.log('wrong token:', outcome);
  console.log('ok');
  process.exit(0);
}

function check(ok: boolean, what: string): void {
  if (!ok) {
    throw new Error(`check failed: ${what}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
