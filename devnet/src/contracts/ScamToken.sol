// SPDX-License-Identifier: MIT
// The devnet's deliberately unsafe token. Two traps the safety view must find with real
// checks: transfers into a marked pool (sells) lose `sellTaxBps` to the owner, and the owner
// can mint at will. Transfers from the owner are untaxed so the owner can seed the pool.
pragma solidity ^0.8.20;

contract ScamToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    uint256 public immutable sellTaxBps;
    address public owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public isPool;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    modifier onlyOwner() {
        require(msg.sender == owner, "owner");
        _;
    }

    constructor(string memory name_, string memory symbol_, uint256 sellTaxBps_, uint256 supply) {
        require(sellTaxBps_ <= 10_000, "tax");
        name = name_;
        symbol = symbol_;
        sellTaxBps = sellTaxBps_;
        owner = msg.sender;
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 value) external onlyOwner {
        _mint(to, value);
    }

    function setPool(address pool, bool taxed) external onlyOwner {
        isPool[pool] = taxed;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _move(from, to, value);
        return true;
    }

    function _mint(address to, uint256 value) private {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _move(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "balance");
        uint256 tax = (isPool[to] && from != owner) ? (value * sellTaxBps) / 10_000 : 0;
        balanceOf[from] -= value;
        balanceOf[to] += value - tax;
        emit Transfer(from, to, value - tax);
        if (tax > 0) {
            balanceOf[owner] += tax;
            emit Transfer(from, owner, tax);
        }
    }
}
