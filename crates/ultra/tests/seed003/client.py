"""Seed 003 §10's Python client, as the seed gives it, driven against `ultra serve`.

Usage: client.py PORT TOKEN. Exits 0 when every step answered as the seed says; prints
what it did. The class below is the seed's own (only its imports are shared with the
driver); the acceptance test is that it works unchanged.
"""

import asyncio
import websockets
import json
import uuid
import sys
import hmac

class VSCodeAgentClient:
    def __init__(self, host='localhost', port=19876, token=''):
        self.uri = f'ws://{host}:{port}'
        self.token = token
        self.ws = None
        self.pending = {}
        
    async def connect(self):
        self.ws = await websockets.connect(self.uri)
        # Wait for auth challenge
        challenge = json.loads(await self.ws.recv())
        nonce = challenge['params']['nonce']
        
        # Authenticate
        await self._send('auth.authenticate', {
            'token': self.token,
            'nonce': nonce
        })
        
    async def _send(self, method, params=None):
        request_id = str(uuid.uuid4())
        message = {
            'jsonrpc': '2.0',
            'id': request_id,
            'method': method,
            'params': params or {}
        }
        await self.ws.send(json.dumps(message))
        
        # Wait for response
        while True:
            response = json.loads(await self.ws.recv())
            if response.get('id') == request_id:
                if 'error' in response:
                    raise Exception(response['error']['message'])
                return response.get('result')
    
    async def open_file(self, path, preview=False):
        return await self._send('editor.openFile', {
            'path': path,
            'preview': preview
        })
    
    async def get_content(self, path):
        result = await self._send('editor.getContent', {'path': path})
        return result['content']
    
    async def set_content(self, path, content):
        return await self._send('editor.setContent', {
            'path': path,
            'content': content
        })
    
    async def execute_command(self, command, args=None):
        return await self._send('command.execute', {
            'command': command,
            'args': args or []
        })
    
    async def run_terminal_command(self, command, cwd=None):
        # Create terminal
        result = await self._send('terminal.create', {
            'name': 'Agent Terminal',
            'cwd': cwd
        })
        terminal_id = result['terminalId']
        
        # Send command
        await self._send('terminal.sendText', {
            'terminalId': terminal_id,
            'text': command,
            'addNewLine': True
        })
        
        return terminal_id


async def main(port, token):
    client = VSCodeAgentClient(port=port, token=token)
    await client.connect()
    opened = await client.open_file('src/app.ts')
    print('opened', opened)
    content = await client.get_content('src/app.ts')
    assert content == 'export const a = 1;\n', content
    await client.set_content('src/app.ts', 'export const a = 2;\n')
    assert await client.get_content('src/app.ts') == 'export const a = 2;\n'
    saved = await client.execute_command('editor.save', [{'path': 'src/app.ts'}])
    print('saved', saved)
    listed = await client.execute_command('command.list', [{'filter': 'editor.save'}])
    assert 'editor.save' in listed['result']['commands'], listed
    try:
        await client.get_content('missing.ts')
        raise AssertionError('a missing file must fail')
    except Exception as e:
        print('missing file:', e)
        assert 'missing.ts' in str(e)
    # The seed's terminal flow, then the output read back (the pull API).
    terminal_id = await client.run_terminal_command('echo from-$((40+2))', cwd='src')
    waited = await client._send('terminal.wait', {
        'terminalId': terminal_id, 'until': {'output': 'from-42'}, 'since': 0, 'timeoutMs': 10000})
    assert waited['matched'], waited
    # Issue 19's seed-003 shapes, through the seed's own client: terminal.list items carry
    # {id, name, processId}; command.execute passes positional args in the target's
    # declared order; diagnostics filter by severity.
    terminals = await client._send('terminal.list', {})
    mine = [t for t in terminals['terminals'] if t['id'] == terminal_id]
    assert mine and mine[0]['name'] == 'Agent Terminal' and mine[0]['processId'] > 0, terminals
    read = await client.execute_command('ultra.getFileContent', ['src/app.ts', None, 1])
    assert read['result']['content'] == 'export const a = 2;\n', read
    errors = await client._send('state.getDiagnostics', {'path': 'src/app.ts', 'severity': 'error'})
    assert errors['diagnostics'] == [], errors
    # A client with the wrong token is refused.
    bad = VSCodeAgentClient(port=port, token='wrong')
    try:
        await bad.connect()
        raise AssertionError('a wrong token must fail')
    except Exception as e:
        print('wrong token:', e)
    # HMAC-SHA256 of the nonce instead of the token itself, computed by Python's hmac.
    async with websockets.connect(f'ws://localhost:{port}') as ws:
        challenge = json.loads(await ws.recv())
        nonce = challenge['params']['nonce']
        signature = hmac.new(token.encode(), nonce.encode(), 'sha256').hexdigest()
        await ws.send(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'auth.authenticate',
                                  'params': {'signature': signature, 'nonce': nonce}}))
        reply = json.loads(await ws.recv())
        assert reply['result']['authenticated'] is True, reply
    print('ok')


if __name__ == '__main__':
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
